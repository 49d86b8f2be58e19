"""Key-term values reviewers can correct: which values become review items (and why), what a
reviewer may type for each kind of value, and how an answer flows into the key terms, the
expiration computed from a corrected start, and the deadlines."""
from __future__ import annotations

from datetime import date

import pytest

from pipelines.aggregate import aggregate_document
from pipelines.datamodel import Finding
from pipelines.deadlines import term_in_force
from pipelines.playbook import load_playbook
from pipelines.review.budget import Budget
from pipelines.review.decisions import apply_decisions, standing
from pipelines.review.value_edits import edited_value
from pipelines.terms.display import how_read
from pipelines.terms.value import NOT_STATED, VALUE_NOTE

AS_OF = date(2026, 12, 7)


def value(field: str, read: str, confidence: float, start: int, detail: dict | None = None) -> Finding:
    quote = {"role": "quote", "start": start, "end": start + 30, "text": f"the {field} clause", "page": 1}
    return Finding(field, f"the {field} clause", start, start + 30, 1, confidence, "key-term values", "r1",
                   value=read, note=VALUE_NOTE, detail={**(detail or {}), "evidence": [quote]})


def renewing_contract(expiration_confidence: float = 0.7) -> list[Finding]:
    """A five-year term from an effective date, renewing by itself for a year at a time unless
    notice is given 60 days before: its next deadline is ahead of AS_OF."""
    return [
        value("Effective Date", "2020-03-01", 0.78, 100),
        value("Expiration Date", "2025-03-01", expiration_confidence, 400,
              {"computed_from": {"start": "2020-03-01", "term": "P5Y"}, "start_from": "Effective Date"}),
        value("Renewal Term", "P1Y", 0.86, 800, {"kind": "automatic", "automatic": True, "successive": True}),
        value("Notice Period To Terminate Renewal", "P60D", 0.82, 1200),
        value("Governing Law", "New York", 0.99, 1600),
    ]


def assess(findings: list[Finding]):  # noqa: ANN201
    return aggregate_document(findings, load_playbook(None), budget=Budget(per_contract=10, sample_rate=0.0,
                                                                            as_of=AS_OF))


def asked(assessment) -> dict[str, str]:  # noqa: ANN001
    return {r.finding.category: r.reason for r in assessment.review if r.parts.get("question") == "value"}


def row(item_id: int, action: str, finding: Finding, new: dict | None = None) -> dict:
    evidence = {"start": finding.start, "end": finding.end, "page": finding.page, "text": finding.text,
                "priority_parts": {"question": "value"}}
    return {"item_id": item_id, "action": action, "previous": {"category": finding.category, "evidence": evidence},
            "new": new or {}, "reviewer": "ann"}


def test_a_typed_value_is_written_as_the_readers_write_it() -> None:
    assert edited_value("Effective Date", "March 1, 2021").value == "2021-03-01"
    assert edited_value("Effective Date", "2021-03-01").value == "2021-03-01"
    assert edited_value("Agreement Date", "1st day of March, 2021").value == "2021-03-01"
    assert edited_value("Expiration Date", "Perpetual").value == "perpetual"
    assert edited_value("Effective Date", " not  stated ").value == NOT_STATED
    assert edited_value("Notice Period To Terminate Renewal", "ninety (90) days").value == "P90D"
    assert edited_value("Initial Term", "p3y").value == "P3Y"
    renewal = edited_value("Renewal Term", "one year", "option", "2")
    assert renewal.value == "P1Y" and renewal.detail["kind"] == "option" and renewal.detail["limit"] == 2
    assert renewal.detail["automatic"] is False
    assert edited_value("Renewal Term", "none").value == "none"
    parties = edited_value("Parties", 'Acme Corp. ("Acme", "Supplier")\nBeta LLC', was={"parties": [
        {"name": "Beta LLC", "short_names": ["Beta"], "role": "Customer"}]})
    assert parties.value == 'Acme Corp. ("Acme", "Supplier"); Beta LLC'
    assert [p["role"] for p in parties.detail["parties"]] == [None, "Customer"]
    assert edited_value("Governing Law", "England  and Wales").value == "England and Wales"
    assert edited_value("Contract Type", "supply or manufacturing").value == "supply_or_manufacturing"


@pytest.mark.parametrize(("field", "typed", "says"), [
    ("Effective Date", "31/02/2016", "a date with its day, month and year"),
    ("Effective Date", "March 2021", "a date with its day, month and year"),
    ("Effective Date", "", "type the Effective Date"),
    ("Notice Period To Terminate Renewal", "soon", "a length of time"),
    ("Renewal Term", "1 year", "say how the contract renews"),
    ("Governing Law", "12345", "a place"),
    ("Contract Type", "lease", "a contract type is one of"),
    ("Uncapped Liability", "yes", "a clause, not a key term's value"),
])
def test_a_value_that_cannot_be_read_back_is_refused_with_the_form_it_takes(field: str, typed: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        edited_value(field, typed)


def test_the_values_a_coming_deadline_depends_on_are_asked_for() -> None:
    items = asked(assess(renewing_contract()))
    # The term ends 1 March 2027 and renews unless notice is given by 31 December 2026: the
    # expiration, the renewal, the notice and the effective date it was computed from decide it.
    assert set(items) == {"Effective Date", "Expiration Date", "Renewal Term", "Notice Period To Terminate Renewal"}
    assert "last day for notice of non-renewal, 31 December 2026" in items["Renewal Term"]
    review = {r.finding.category: r for r in assess(renewing_contract()).review}
    assert review["Expiration Date"].parts["due"] == "2026-12-31"  # urgent by the deadline, not the batch


def test_a_value_nothing_depends_on_is_asked_for_only_when_unsure() -> None:
    ended = [f for f in renewing_contract() if f.category not in ("Renewal Term", "Notice Period To Terminate Renewal")]
    assert term_in_force(assess(ended).key_terms, AS_OF).status == "expired"
    assert set(asked(assess(ended))) == {"Expiration Date"}  # 0.70: under review_below
    sure = [f if f.category != "Expiration Date" else value("Expiration Date", "2025-03-01", 0.85, 400) for f in ended]
    assert asked(assess(sure)) == {}


def test_a_start_read_as_no_date_is_asked_for_so_the_term_can_end() -> None:
    findings = [value("Effective Date", "the Date of Installation", 0.7, 100, {"reference": "the Date of Installation"}),
                value("Expiration Date", NOT_STATED, 0.5, 400,
                      {"computed_from": {"start": None, "term": "P1Y"}, "start_from": "Effective Date"})]
    items = asked(assess(findings))
    assert "runs 1 year from the Effective Date" in items["Effective Date"]
    decided = apply_decisions(findings, standing([row(1, "correct", findings[0], {"value": "1993-12-10"})]))
    after = assess(decided)
    assert after.key_terms["Expiration Date"].value == "1994-12-10"
    assert "the start as ann gave it in review" in how_read(after.key_terms["Expiration Date"])
    assert "Effective Date" not in asked(after)


def test_a_corrected_start_moves_the_expiration_and_the_deadline_with_it() -> None:
    findings = renewing_contract()
    before = term_in_force(assess(findings).key_terms, AS_OF)
    effective = findings[0]
    after = assess(apply_decisions(findings, standing([row(1, "correct", effective, {"value": "2020-09-15"})])))
    expiration = after.key_terms["Expiration Date"]
    assert expiration.value == "2025-09-15" and expiration.detail["computed_from"]["start"] == "2020-09-15"
    assert (before.end, term_in_force(after.key_terms, AS_OF).end) == (date(2027, 3, 1), date(2027, 9, 15))
    effective_term = after.key_terms["Effective Date"]
    assert effective_term.detail["corrected_by"] == "ann" and effective_term.detail["machine_value"] == "2020-03-01"
    assert effective_term.detail["evidence"] == effective.detail["evidence"]  # the quotes it was read from stay
    assert how_read(effective_term) == "given by ann in review; the machine read March 1, 2020"
    # A reviewer's own expiration is theirs: a corrected start does not compute over it.
    both = standing([row(1, "correct", effective, {"value": "2020-09-15"}),
                     row(2, "correct", findings[1], {"value": "2026-12-31"})])
    assert assess(apply_decisions(findings, both)).key_terms["Expiration Date"].value == "2026-12-31"


def test_a_confirmed_value_is_certain_and_not_asked_again() -> None:
    findings = renewing_contract()
    decided = standing([row(1, "accept", findings[3]), row(2, "correct", findings[2], {
        "value": "P2Y", "detail": {"kind": "option", "automatic": False, "limit": 1, "successive": False}})])
    after = assess(apply_decisions(findings, decided))
    notice = after.key_terms["Notice Period To Terminate Renewal"]
    assert notice.finding.confidence == 1.0 and how_read(notice).endswith("confirmed by ann in review")
    assert not {"Notice Period To Terminate Renewal", "Renewal Term"} & set(asked(after))
    # An option renews only if a party acts: the term is not rolled forward past its end.
    assert term_in_force(after.key_terms, AS_OF).status == "expired"


def test_two_readings_of_a_date_that_disagree_are_asked_about() -> None:
    read = value("Effective Date", "the date they were first offered to the other customer", 0.9, 100,
                 {"reference": "the date they were first offered to the other customer"})
    clause = Finding("Effective Date", "effective as of June 1, 2022", 60, 90, 1, 0.86, "key-terms", "r1",
                     value="2022-06-01")
    items = asked(assess([read, clause]))
    assert items["Effective Date"].startswith("Two readings of the Effective Date disagree")
    assert "“June 1, 2022” in a clause found for it" in items["Effective Date"]
    agreeing = value("Effective Date", "2022-06-01", 0.97, 60)
    assert "Effective Date" not in asked(assess([agreeing, clause]))
    sure = value("Effective Date", "2022-05-01", 0.97, 60)  # a near-certain date outweighs a clause rule's
    assert "Effective Date" not in asked(assess([sure, clause]))
