"""The playbook: loading and validating YAML, reading values, and the checks that raise issues."""
from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.datamodel import Finding
from pipelines.playbook import PlaybookError, load_playbook, parse_playbook
from pipelines.categories import CUAD_CATEGORIES, canonical_category
from pipelines.playbook.checks import Unreadable, run_checks
from pipelines.playbook.values import matches_any, normalize, parse_days, says_no


def finding(category: str, confidence: float = 0.9, value: str | None = None, text: str = "clause text",
            start: int = 100, page: int = 2) -> Finding:
    return Finding(category, text, start, start + len(text), page, confidence, "rules", "r1", value=value)


@pytest.fixture(scope="module")
def default():
    return load_playbook(None)


def test_default_playbook_covers_every_cuad_category(default):
    assert default.label == "commercial-default@1"
    assert set(default.severities) == set(CUAD_CATEGORIES)
    assert {r.category for r in default.required} >= {"Cap On Liability", "Governing Law"}
    assert {r.category for r in default.risky} >= {
        "Uncapped Liability", "Non-Compete", "Exclusivity", "Liquidated Damages", "Most Favored Nation",
        "Change Of Control"}
    assert {c.kind for c in default.value_checks} == {"allowed_values", "min_days", "auto_renewal"}
    assert default.thresholds.floor <= default.thresholds.present <= default.thresholds.review_below


def test_a_playbook_file_overrides_the_default(tmp_path: Path):
    path = tmp_path / "mine.yaml"
    path.write_text(
        "name: strict\nversion: 2\nthresholds: {present: 0.6}\n"
        "severities: {non-compete: critical}\n"
        "required:\n  Insurance:\n    severity: medium\n    advice: Ask for {category}.\n"
    )
    playbook = load_playbook(path)
    assert playbook.label == "strict@2"
    assert playbook.severity("Non-Compete") == "critical"  # category names match case-insensitively
    assert playbook.severity("Parties") == "info"
    assert playbook.thresholds.present == 0.6
    assert playbook.thresholds.review_below == 0.75
    issues, _ = run_checks(playbook, [], {})
    assert [(i.kind, i.finding.category, i.advice) for i in issues] == [("missing", "Insurance", "Ask for Insurance.")]


def test_yaml_syntax_error_names_the_line(tmp_path: Path):
    path = tmp_path / "broken.yaml"
    path.write_text("name: x\nversion: 1\nrequired:\n  Cap On Liability: {severity: high\n")
    with pytest.raises(PlaybookError) as err:
        load_playbook(path)
    message = str(err.value)
    assert str(path) in message and "not valid YAML at line" in message


def test_every_problem_is_reported_at_once():
    text = """
name: x
version: 1
thresholds: {present: 1.5}
severities: {Cap on Liabilty: high, Parties: severe}
risky:
  Non-Compete: {severity: high, reasn: typo}
value_checks:
  - {category: Governing Law, kind: allowed_values, severity: medium}
  - {category: Notice Period To Terminate Renewal, kind: min_days, min_days: soon, severity: low}
  - {category: Renewal Term, kind: sometimes, severity: low}
  - {category: Renewal Term, kind: auto_renewal, severity: low, reason: "renews {when}"}
colour: blue
"""
    with pytest.raises(PlaybookError) as err:
        parse_playbook(text, origin="team.yaml")
    problems = err.value.problems
    message = str(err.value)
    assert message.startswith("team.yaml: invalid playbook")
    expected = [
        "thresholds > present: must be a number from 0 to 1, not 1.5",
        "severities: 'Cap on Liabilty' is not a CUAD category (did you mean 'Cap On Liability'?)",
        "severities > Parties: must be one of info, low, medium, high, critical, not 'severe'",
        "risky > Non-Compete: unknown key 'reasn' (did you mean 'reason'?)",
        "value_checks > #1 > allowed: must be a non-empty list of values",
        "value_checks > #2 > min_days: must be a whole number of days, not 'soon'",
        "value_checks > #3 > kind: must be one of allowed_values, min_days, auto_renewal, not 'sometimes'",
        "value_checks > #4 > reason: unknown placeholder(s) when",
        "top level: unknown key 'colour'",
    ]
    for text in expected:
        assert any(p.startswith(text) for p in problems), (text, problems)


def test_missing_file_and_non_mapping_are_playbook_errors(tmp_path: Path):
    with pytest.raises(PlaybookError, match="cannot read the file"):
        load_playbook(tmp_path / "absent.yaml")
    with pytest.raises(PlaybookError, match="must be a mapping"):
        parse_playbook("- just\n- a list\n")
    with pytest.raises(PlaybookError, match="name is required"):
        parse_playbook("version: 1\n")


@pytest.mark.parametrize(("value", "days"), [
    ("90 days", 90), ("ninety (90) days", 90), ("60) days", 60), ("(6) months", 180), ("1 year", 365),
    ("60 days; 180 days", 60), ("thirty (30) calendar days", 30), ("10 business days", 14), ("45", 45),
    ("2 weeks", 14), ("a month", 30), ("promptly", None), ("", None),
])
def test_parse_days(value: str, days: int | None):
    assert parse_days(value) == days


def test_value_helpers():
    assert normalize("the State of New York") == "new york"
    assert matches_any("Laws of the State of New York, USA", ("New York",))
    assert not matches_any("York", ("New York",))
    assert matches_any("England; Wales", ("England and Wales", "England"))
    assert says_no("No") and says_no(" n/a ") and not says_no("successive 1 year") and not says_no(None)
    assert canonical_category("cap on  liability") == "Cap On Liability"


def test_missing_required_clause(default):
    law = finding("Governing Law", value="Delaware", text="This Agreement is governed by the laws of Delaware.")
    issues, _ = run_checks(default, [law], {})
    missing = {i.finding.category: i for i in issues if i.kind == "missing"}
    assert "Governing Law" not in missing
    cap = missing["Cap On Liability"]
    assert cap.finding.source == "playbook" and cap.finding.version == default.label
    assert cap.finding.severity == "medium" and cap.finding.confidence == 1.0
    assert cap.finding.text == "" and "No cap on liability" in cap.finding.note
    assert cap.advice.startswith("Add a mutual cap")


def test_weakly_evidenced_required_clause_is_missing_with_its_quote(default):
    weak = finding("Cap On Liability", confidence=0.3, text="shall not exceed", page=7)
    issues, _ = run_checks(default, [weak], {})
    cap = next(i for i in issues if i.finding.category == "Cap On Liability")
    assert cap.kind == "missing"
    assert cap.finding.confidence == pytest.approx(0.7)
    assert cap.finding.text == "shall not exceed" and cap.finding.page == 7
    assert "weak evidence (confidence 0.30) on page 7" in cap.finding.note


def test_risky_clause_present_only_above_the_presence_threshold(default):
    uncapped = "The limitations of liability in Section 9 shall not apply to a breach of confidentiality."
    found = [finding("Uncapped Liability", 0.8, text=uncapped), finding("Non-Compete", 0.4)]
    issues, _ = run_checks(default, found, {})
    risky = [i for i in issues if i.kind == "risky"]
    assert [i.finding.category for i in risky] == ["Uncapped Liability"]
    assert risky[0].finding.severity == "critical" and risky[0].finding.confidence == 0.8
    assert risky[0].finding.text == uncapped and risky[0].finding.page == 2


def test_value_checks(default):
    valued = {
        "Governing Law": [finding("Governing Law", value="Texas")],
        "Notice Period To Terminate Renewal": [
            finding("Notice Period To Terminate Renewal", value="fifteen (15) days")],
        "Renewal Term": [finding("Renewal Term", value="successive 1 year",
                                 text="It renews automatically for successive one-year terms.")],
    }
    issues, unreadable = run_checks(default, [], valued)
    by_category = {i.finding.category: i for i in issues if i.kind == "value"}
    assert "Texas, outside the accepted jurisdictions" in by_category["Governing Law"].finding.note
    notice = by_category["Notice Period To Terminate Renewal"]
    assert notice.finding.severity == "medium" and "under the 30 days" in notice.finding.note
    assert notice.advice == "Ask for at least 30 days' notice of non-renewal."
    assert "renews automatically (successive 1 year)" in by_category["Renewal Term"].finding.note
    assert unreadable == []


def test_value_checks_that_pass_or_cannot_read(default):
    valued = {
        "Governing Law": [finding("Governing Law", value="State of New York")],
        "Notice Period To Terminate Renewal": [finding("Notice Period To Terminate Renewal", value="90 days")],
        "Renewal Term": [finding("Renewal Term", value="No")],
    }
    issues, unreadable = run_checks(default, [], valued)
    assert [i for i in issues if i.kind == "value"] == []
    odd = finding("Notice Period To Terminate Renewal", value="promptly")
    issues, unreadable = run_checks(default, [], {odd.category: [odd]})
    assert [i for i in issues if i.kind == "value"] == []
    assert len(unreadable) == 1 and isinstance(unreadable[0], Unreadable)
    assert "Could not read a number of days from 'promptly'" in unreadable[0].reason


def test_value_check_reads_the_clause_text_when_there_is_no_value(default):
    clause = finding("Governing Law", text="governed by the laws of the State of Ohio")
    issues, _ = run_checks(default, [], {"Governing Law": [clause]})
    assert any(i.kind == "value" and "Ohio" in i.finding.note for i in issues)


def test_stakes_is_the_worst_role_of_a_category(default):
    assert default.severity("Cap On Liability") == "info"
    assert default.stakes("Cap On Liability") == "medium"
    assert default.stakes("Governing Law") == "low"  # its value check and its absence
