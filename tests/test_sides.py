"""Our side of a contract: which party we are, and restraints judged by whom they bind."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipelines.aggregate import aggregate_document
from pipelines.assessment import DocumentAssessment, Party, Sides
from pipelines.datamodel import Finding
from pipelines.playbook import PlaybookError, load_playbook, parse_playbook
from pipelines.sides import bound_parties, find_sides, right_holders
from pipelines.stages.extract import extract_text_layer
from pipelines.stages.segment import segment_document
from pipelines.steps import playbook_for, rules_analyser

CONTRACT = """DISTRIBUTION AGREEMENT

This Distribution Agreement (the "Agreement") is made as of March 1, 2021 by and between Northwind Trading Ltd., \
a Delaware corporation ("Supplier"), and Acme Retail Inc., a New York corporation ("Distributor").

1. Appointment. Supplier hereby appoints Distributor as its exclusive distributor of the Products in the \
Territory, and Supplier shall not appoint any other distributor in the Territory during the Term.

2. Non-Competition. During the Term and for two (2) years thereafter, Supplier shall not, directly or \
indirectly, manufacture, sell or distribute any product that competes with the Products in the Territory.

3. Termination. Supplier may terminate this Agreement at any time for convenience upon thirty (30) days' \
written notice to Distributor.

4. Governing Law. This Agreement shall be governed by the laws of the State of New York.
"""
# The clauses as the expert model would find them (the rules alone are not sure enough to raise them).
CLAUSES = {"Exclusivity": r"Supplier hereby appoints[^.]*\.", "Non-Compete": r"During the Term and for two[^.]*\.",
           "Termination For Convenience": r"Supplier may terminate[^.]*\."}
SIDES = Sides((Party("Northwind Trading Ltd.", ("Supplier",), "Supplier"), Party("Acme Retail Inc.", ("Distributor",),
                                                                                  "Distributor")), us=1)


def assess(tmp_path: Path, *we: str) -> DocumentAssessment:
    path = tmp_path / "distribution.txt"
    path.write_text(CONTRACT)
    pages = extract_text_layer(path, "txt")
    text = "\n\n".join(p.text for p in pages)
    findings = rules_analyser(text, segment_document(pages))
    for category, pattern in CLAUSES.items():
        m = re.search(pattern, text)
        findings.append(Finding(category, m.group(0), m.start(), m.end(), 1, 0.9, "model", "test"))
    return aggregate_document(findings, load_playbook(None).as_party(we), len(pages))


def risky(a: DocumentAssessment) -> set[str]:
    return {i.finding.category for i in a.issues if i.kind == "risky"}


def test_restraints_that_bind_only_the_other_side_raise_no_issue(tmp_path: Path) -> None:
    nobody = assess(tmp_path)
    assert nobody.sides.our_party is None and len(nobody.sides.counterparties) == 2
    assert risky(nobody) == {"Exclusivity", "Non-Compete", "Termination For Convenience"}

    distributor = assess(tmp_path, "Acme Retail")
    assert distributor.sides.our_role == "Distributor"
    assert [p.name for p in distributor.sides.counterparties] == ["Northwind Trading Ltd."]
    # The supplier's exclusivity and non-compete are what the distributor bargained for; the
    # supplier's right to walk away is still a risk to it.
    assert risky(distributor) == {"Termination For Convenience"}
    notes = {m.finding.category: m.finding.note for m in distributor.findings if "in our favour" in (m.finding.note or "")}
    assert notes.keys() == {"Exclusivity", "Non-Compete"}
    assert "binds only Northwind Trading Ltd., not us" in notes["Non-Compete"]

    supplier = assess(tmp_path, "northwind")  # any case, the suffix left out
    assert supplier.sides.our_role == "Supplier"
    assert risky(supplier) == {"Exclusivity", "Non-Compete"}
    assert DocumentAssessment.from_dict(supplier.to_dict()).sides == supplier.sides


def test_who_a_clause_binds_is_read_from_its_subject() -> None:
    assert bound_parties("Distributor shall not sell competing products.", SIDES) == {1}
    assert bound_parties("Supplier hereby grants Distributor an exclusive licence.", SIDES) == {0}
    assert bound_parties("Neither party shall solicit the other's employees.", SIDES) == {0, 1}
    assert bound_parties("No competing products may be sold in the Territory.", SIDES) is None
    assert right_holders("Distributor may terminate this Agreement for convenience.", SIDES) == {1}
    assert right_holders("Either party may terminate on 30 days' notice.", SIDES) == {0, 1}


def test_names_match_a_legal_name_or_a_short_name() -> None:
    parties = [{"name": "ACME, Inc.", "short_names": ["Acme"], "role": None},
               {"name": "Jane Doe", "short_names": ["Consultant"], "role": "Consultant"}]
    assert find_sides(parties, ["Acme Inc"]).us == 0
    assert find_sides(parties, ["consultant"]).us == 1
    assert find_sides(parties, ["Globex"]).us is None
    assert find_sides(parties, []).counterparties == find_sides(parties, ["Globex"]).counterparties


def test_the_side_comes_from_the_party_option_then_the_playbook() -> None:
    assert load_playbook(None).we == ()
    yaml = "name: ours\nversion: '1'\nwe: Acme Retail Inc.\n"
    assert parse_playbook(yaml).we == ("Acme Retail Inc.",)
    assert playbook_for({"playbook": yaml}).we == ("Acme Retail Inc.",)
    assert playbook_for({"playbook": yaml, "party": ["Acme Europe GmbH"]}).we == ("Acme Europe GmbH",)
    with pytest.raises(PlaybookError, match="we: must be a name or a list of names"):
        parse_playbook("name: ours\nversion: '1'\nwe: [1, 2]\n")


def test_the_party_option_outranks_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from pipelines.cli.batches import batch_options
    from pipelines.settings import get_settings

    monkeypatch.setenv("CLAUSEMILL_OUR_PARTY", "Acme Retail Inc.; Acme Europe GmbH")
    get_settings.cache_clear()
    assert batch_options(None, "full")["party"] == ["Acme Retail Inc.", "Acme Europe GmbH"]
    assert batch_options(None, "full", ["Northwind"])["party"] == ["Northwind"]
    monkeypatch.delenv("CLAUSEMILL_OUR_PARTY")
    get_settings.cache_clear()
    assert "party" not in batch_options(None, "full")
