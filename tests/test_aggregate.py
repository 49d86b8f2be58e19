"""Aggregation: merging evidence, arbitrating key terms, risk roll-up, review queue, batch summary."""
from __future__ import annotations

import json

import pytest

from pipelines.aggregate import aggregate_document, assess_batch, merge_findings, risk, summarize_batch
from pipelines.assessment import DocumentAssessment, Issue
from pipelines.datamodel import WIDER_SPAN_SOURCE, BatchResult, DocumentResult, Finding
from pipelines.playbook import PlaybookError, load_playbook, parse_playbook
from pipelines.playbook.severity import WEIGHTS
from pipelines.terms import VALUE_NOTE


@pytest.fixture(scope="module")
def playbook():
    return load_playbook(None)


def f(category: str, start: int, end: int, confidence: float, source: str = "rules", *, page: int = 3,
      value: str | None = None, text: str | None = None, note: str | None = None, box=None) -> Finding:
    return Finding(category, text if text is not None else f"{category} text {start}-{end}", start, end, page,
                   confidence, source, f"{source}-v1", box=box, value=value, note=note)


def issue(severity: str, confidence: float = 1.0) -> Issue:
    return Issue("risky", Finding("Non-Compete", "", 0, 0, 0, confidence, "playbook", "p@1", severity=severity))


def test_overlapping_evidence_from_two_sources_merges_with_noisy_or(playbook):
    model = f("Non-Compete", 1000, 1200, 0.7, "model", text="Supplier shall not compete ... in North America.",
              box=(72.0, 100.0, 540.0, 140.0))
    rules = f("Non-Compete", 1050, 1100, 0.8, "rules", text="shall not compete")
    merged = merge_findings([model, rules], playbook)
    assert len(merged) == 1
    m = merged[0].finding
    assert m.source == "rules+model"
    assert m.version == "rules-v1+model-v1"
    assert m.confidence == pytest.approx(1 - 0.3 * 0.2)
    assert (m.text, m.start, m.end) == ("shall not compete", 1050, 1100)  # the tightest span is the quote
    assert m.severity == "high"  # the playbook's severity for the clause
    assert merged[0].evidence == [rules, model]  # every piece of evidence, rules first


def test_one_source_repeating_itself_is_not_independent_evidence(playbook):
    merged = merge_findings([f("Audit Rights", 0, 50, 0.6), f("Audit Rights", 40, 90, 0.7)], playbook)
    assert len(merged) == 1
    assert merged[0].finding.confidence == 0.7
    assert merged[0].finding.source == "rules"


def test_three_sources_and_chained_overlaps(playbook):
    found = [f("Insurance", 0, 100, 0.5, "model"), f("Insurance", 90, 150, 0.5, "key-terms"),
             f("Insurance", 140, 190, 0.5, "rules"), f("Insurance", 500, 600, 0.9, "model")]
    merged = merge_findings(found, playbook)
    assert [(m.finding.start, m.finding.source) for m in merged] == [(140, "rules+key-terms+model"), (500, "model")]
    assert merged[0].finding.confidence == pytest.approx(1 - 0.5 ** 3)


def test_a_wider_span_stays_its_own_candidate_beside_the_clause_it_widens(playbook):
    model = f("License Grant", 100, 300, 0.9, "model")
    neighbour = f("License Grant", 301, 500, 0.2, "model")
    wider = f("License Grant", 100, 500, 0.02, WIDER_SPAN_SOURCE)
    merged = merge_findings([model, neighbour, wider], playbook)
    assert sorted((m.finding.start, m.finding.end, m.finding.confidence, m.finding.source) for m in merged) == [
        (100, 300, 0.9, "model"), (100, 500, 0.02, WIDER_SPAN_SOURCE), (301, 500, 0.2, "model")]


def test_categories_never_merge_and_playbook_input_is_ignored(playbook):
    found = [f("Exclusivity", 0, 100, 0.9), f("Non-Compete", 0, 100, 0.9),
             Finding("Cap On Liability", "", 0, 0, 0, 1.0, "playbook", "old@0", severity="high")]
    merged = merge_findings(found, playbook)
    assert sorted(m.finding.category for m in merged) == ["Exclusivity", "Non-Compete"]


def test_one_value_from_several_places_is_agreed(playbook):
    a = aggregate_document([f("Governing Law", 5000, 5040, 0.9, value="Delaware"),
                            f("Governing Law", 9000, 9040, 0.8, value="the State of Delaware")], playbook)
    term = a.key_terms["Governing Law"]
    assert (term.value, term.basis, term.conflict) == ("Delaware", "agreed", False)


def test_conflict_is_settled_by_a_defined_term(playbook):
    defined = f("Effective Date", 4000, 4060, 0.8, "key-terms", value="2020-03-01",
                text='effective as of March 1, 2020 (the "Effective Date")')
    mention = f("Effective Date", 9000, 9030, 0.95, "key-terms", value="2020-04-01", text="commencing April 1, 2020")
    term = aggregate_document([defined, mention], playbook).key_terms["Effective Date"]
    assert (term.value, term.basis) == ("2020-03-01", "defined term")
    assert [c.value for c in term.candidates] == ["2020-03-01", "2020-04-01"]


def test_defined_term_in_wider_model_evidence_counts(playbook):
    rules = f("Effective Date", 4010, 4030, 0.7, "rules", value="2020-03-01", text="March 1, 2020")
    model = f("Effective Date", 4000, 4060, 0.6, "model", text='March 1, 2020 (the “Effective Date”)')
    other = f("Effective Date", 9000, 9030, 0.9, "rules", value="2021-01-01")
    term = aggregate_document([rules, model, other], playbook).key_terms["Effective Date"]
    assert (term.value, term.basis) == ("2020-03-01", "defined term")


def test_conflict_is_settled_by_the_preamble_or_signature_block(playbook):
    preamble = f("Agreement Date", 200, 220, 0.7, value="2019-05-01", page=1)
    later = f("Agreement Date", 8000, 8020, 0.9, value="2019-06-01", page=5)
    assert aggregate_document([preamble, later], playbook).key_terms["Agreement Date"].basis == "preamble"
    body = f("Agreement Date", 3000, 3020, 0.9, value="2019-05-01", page=2)
    signed = f("Agreement Date", 9000, 9020, 0.7, value="2019-06-01", page=9)
    term = aggregate_document([body, signed], playbook, page_count=9).key_terms["Agreement Date"]
    assert (term.value, term.basis) == ("2019-06-01", "signature block")


def test_unsettled_conflict_goes_to_review_and_both_values_are_checked(playbook):
    texas = f("Governing Law", 5000, 5040, 0.9, value="Texas", page=4)
    new_york = f("Governing Law", 9000, 9040, 0.85, value="New York", page=7)
    a = aggregate_document([texas, new_york], playbook, page_count=9)
    term = a.key_terms["Governing Law"]
    assert term.conflict and term.value is None and term.finding is None
    assert [c.value for c in term.candidates] == ["Texas", "New York"]
    conflict = [r for r in a.review if r.reason.startswith("Conflicting Governing Law")]
    assert len(conflict) == 1
    assert "Texas (page 4); New York (page 7)" in conflict[0].reason
    assert conflict[0].priority == WEIGHTS["low"]  # stakes: the value check's severity, uncertainty 1
    bad_values = [i for i in a.issues if i.kind == "value" and i.finding.category == "Governing Law"]
    assert [i.finding.value for i in bad_values] == ["Texas"]


def test_parties_are_listed_not_arbitrated(playbook):
    parties = [f("Parties", 10, 20, 0.9, value="Acme Corp."), f("Parties", 40, 60, 0.9, value="Widget LLC")]
    a = aggregate_document(parties, playbook)
    term = a.key_terms["Parties"]
    assert (term.value, term.basis) == ("Acme Corp.; Widget LLC", "listed")


def test_low_confidence_findings_are_queued_by_priority(playbook):
    found = [f("Cap On Liability", 100, 150, 0.3, "model"), f("Non-Compete", 300, 400, 0.6, "model"),
             f("Audit Rights", 500, 600, 0.1, "model"), f("Insurance", 700, 800, 0.95)]
    a = aggregate_document(found, playbook)
    # Under the floor (Audit Rights, 0.1) is noise; at or over review_below (Insurance) is settled.
    # Priority is the stakes' weight times the chance the machine's call is wrong, most urgent first:
    # Non-Compete is reported (0.6 >= present), wrong with 0.4; the cap is not (0.3), wrong with 0.3.
    assert [(r.finding.category, r.priority) for r in a.review] == [
        ("Non-Compete", WEIGHTS["high"] * 0.4),
        ("Cap On Liability", WEIGHTS["medium"] * 0.3),  # a doubtful cap matters as much as a missing one
    ]
    assert a.review[0].parts == {"stakes": "high", "weight": WEIGHTS["high"], "p_wrong": 0.4, "question": "presence"}
    assert "reported as present" in a.review[0].reason and "not reported" in a.review[1].reason
    assert DocumentAssessment.from_dict(a.to_dict()).review == a.review
    assert [m.finding.category for m in a.shown()] == ["Cap On Liability", "Non-Compete", "Insurance"]


def test_risk_roll_up():
    t = load_playbook(None).thresholds
    assert risk([], t) == (0.0, "low")
    assert risk([issue("medium")], t) == (31.2, "medium")  # its band, 25-50, a quarter in
    assert risk([issue("high")], t) == (62.5, "high")
    assert risk([issue("critical")], t) == (95.0, "critical")
    # Many ordinary issues rank a contract higher within its level; they never raise the level.
    assert risk([issue("medium")] * 3, t) == (39.5, "medium")
    assert risk([issue("high")] * 2, t)[1] == "high"
    assert risk([issue("critical", 0.9)], t) == (93.0, "critical")  # a verified critical issue
    assert risk([issue("critical", 0.5)], t) == (10.0, "low")  # an unverified one is for review
    assert risk([issue("info")] * 5, t)[1] == "low"
    scores = [risk([issue(s)], t)[0] for s in ("low", "medium", "high", "critical")]
    assert scores == sorted(scores)  # sorting by score sorts by level


def test_whole_document_assessment(playbook):
    found = [
        f("Governing Law", 5000, 5070, 0.9, value="New York"),
        f("Cap On Liability", 6000, 6100, 0.9, "model"),
        f("Anti-Assignment", 6200, 6300, 0.9),
        f("Uncapped Liability", 7000, 7100, 0.95, "model"),
        f("Notice Period To Terminate Renewal", 7200, 7230, 0.9, value="90 days"),
    ]
    a = aggregate_document(found, playbook)
    assert [(i.kind, i.finding.category) for i in a.issues] == [("risky", "Uncapped Liability")]
    assert a.risk_score == pytest.approx(94.0)  # critical: 75 + 25 x (0.8 x 0.95)
    assert a.risk_level == "critical"
    assert a.review == []
    assert a.playbook == "commercial-default@1"


def test_assessment_round_trips_through_json(playbook):
    found = [f("Governing Law", 5000, 5040, 0.9, value="Texas", box=(1.0, 2.0, 3.0, 4.0)),
             f("Governing Law", 9000, 9040, 0.9, value="Ohio"), f("Cap On Liability", 100, 120, 0.3, "model"),
             f("Notice Period To Terminate Renewal", 300, 320, 0.9, value="soon")]
    a = aggregate_document(found, playbook)
    assert any("Could not read" in r.reason for r in a.review)
    back = DocumentAssessment.from_dict(json.loads(json.dumps(a.to_dict())))
    assert back == a
    texas = next(m for m in back.findings if m.finding.value == "Texas")
    assert texas.finding.box == (1.0, 2.0, 3.0, 4.0) and texas.evidence[0].box == (1.0, 2.0, 3.0, 4.0)


def test_assess_and_summarize_a_batch(playbook):
    risky = DocumentResult(1, "a.pdf", "/in/a.pdf", "done", findings=[f("Non-Compete", 0, 100, 0.9)])
    clean = DocumentResult(2, "b.pdf", "/in/b.pdf", "done", findings=[
        f("Cap On Liability", 0, 100, 0.9), f("Governing Law", 200, 300, 0.9, value="Delaware"),
        f("Anti-Assignment", 400, 500, 0.9)])
    failed = DocumentResult(3, "c.pdf", "/in/c.pdf", "failed", stage="ingest", reason="encrypted")
    stored = DocumentResult(4, "d.pdf", "/in/d.pdf", "done")
    batch = BatchResult("b1", "done", "2024-01-01T00:00:00Z", "2024-01-01T00:01:00Z", [risky, clean, failed, stored])
    precomputed = aggregate_document([f("Uncapped Liability", 0, 50, 0.99)], playbook)
    assessed = assess_batch(batch, playbook, {4: precomputed})
    assert assessed[2] == (failed, None)
    assert assessed[3][1] is precomputed
    summary = summarize_batch(assessed)
    assert summary["documents"] == 4
    assert summary["by_status"] == {"done": 3, "failed": 1}
    assert summary["failed"] == [{"id": 3, "filename": "c.pdf", "stage": "ingest", "reason": "encrypted"}]
    # a non-compete and the clauses it lacks make a.pdf high, not critical: issues do not add up
    assert summary["by_risk_level"] == {"low": 1, "medium": 0, "high": 1, "critical": 1}
    top = {t["category"]: t["documents"] for t in summary["top_categories"]}
    assert top["Cap On Liability"] == 2 and top["Non-Compete"] == 1
    assert summary["categories"]["Cap On Liability"] == {"medium": 2, "info": 1}
    assert json.loads(json.dumps(summary)) == summary


def contract_type(kind: str) -> Finding:
    return Finding("Contract Type", "", 0, 0, 1, 0.9, "key-terms", "test", value=kind, note=VALUE_NOTE,
                   detail={"evidence": []})


def test_an_amendment_or_a_filing_exhibit_needs_no_cap_of_its_own(playbook):
    for kind in ("amendment", "filing_exhibit"):
        a = aggregate_document([contract_type(kind)], playbook)
        assert a.key_terms["Contract Type"].value == kind
        assert not [i for i in a.issues if i.kind == "missing"], kind
        assert a.risk_level == "low"
    licence = aggregate_document([contract_type("licence")], playbook)
    assert {i.finding.category for i in licence.issues if i.kind == "missing"} == {
        "Cap On Liability", "Governing Law", "Anti-Assignment"}


def test_a_playbook_names_only_known_contract_types():
    bad = ("name: t\nversion: '1'\nrequired:\n  Cap On Liability:\n    severity: medium\n"
           "    except_types: [amendment, lease]\n")
    with pytest.raises(PlaybookError, match="except_types: must be a list of contract types among licence"):
        parse_playbook(bad)


def test_a_clause_no_quote_of_which_states_it_is_not_present(playbook):
    gaap = f("Most Favored Nation", 400, 480, 0.8, "model",
             text="Net Sales shall be determined in accordance with generally accepted accounting principles.")
    mfn = f("Most Favored Nation", 900, 1000, 0.8, "model",
            text="The prices charged to Buyer shall be no less favourable than those charged to any other customer.")
    dated = f("Agreement Date", 10, 23, 0.9, "key-terms", text="March 1, 2020", value="2020-03-01")
    a = aggregate_document([gaap, mfn, dated], playbook)
    by_text = {m.finding.text: m.finding for m in a.findings}
    unstated = by_text[gaap.text]
    assert unstated.confidence == 0.4 and unstated.note.endswith("quote set aside: no comparison with others' terms")
    assert by_text[mfn.text].confidence == 0.8 and by_text[dated.text].confidence == 0.9
    assert [m.finding.text for m in a.present() if m.finding.category == "Most Favored Nation"] == [mfn.text]


def test_a_renewal_notice_period_the_reader_found_none_of_is_not_present(playbook):
    notice = f("Notice Period To Terminate Renewal", 500, 580, 0.8, "model",
               text="Either party may terminate this Agreement upon ninety (90) days prior written notice.")
    law = f("Governing Law", 10, 40, 0.9, "key-terms", text="the laws of the State of New York", value="New York",
            note=VALUE_NOTE)
    unread = aggregate_document([notice, law], playbook)
    (m,) = [m for m in unread.findings if m.finding.category == notice.category]
    assert m.finding.confidence == 0.4 and "no notice period to stop a renewal read" in m.finding.note
    read = f("Notice Period To Terminate Renewal", 500, 580, 0.9, "key-terms", text=notice.text, value="P90D",
             note=VALUE_NOTE)
    assessed = aggregate_document([notice, law, read], playbook)
    assert max(m.finding.confidence for m in assessed.findings if m.finding.category == notice.category) >= 0.8


def test_the_review_question_says_why_a_quote_was_set_aside(playbook):
    gaap = f("Most Favored Nation", 400, 480, 0.8, "model",
             text="Net Sales shall be determined in accordance with generally accepted accounting principles.")
    (item,) = [r for r in aggregate_document([gaap], playbook).review if r.finding.category == "Most Favored Nation"]
    assert item.reason.startswith("Is this Most Favored Nation? The machine is unsure (0.40; not reported). "
                                  "Its quote was set aside: no comparison with others' terms.")
