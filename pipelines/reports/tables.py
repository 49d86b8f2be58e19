"""Assessed documents flattened into rows, for the spreadsheet and CSV outputs.

Kept apart from the writers so report.xlsx and findings.csv always agree on columns.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from pipelines.assessment import Assessed, DocumentAssessment
from pipelines.datamodel import DocumentResult, Finding, KeyTerm
from pipelines.categories import KEY_TERMS
from pipelines.deadlines import KIND_TITLES, deadline_for, term_in_force
from pipelines.terms.display import how_read, key_term_text, parse_iso_date, quotes
from pipelines.terms.durations import approximate_days

SUMMARY_DOCUMENT_HEADERS = ["File", "Status", "Risk level", "Risk score", "Missing clauses",
                            "To renegotiate", "Review items", "Reason"]
FULL_DOCUMENT_HEADERS = ["ID", "File", "Status", "Stage", "Reason", "Kind", "Pages", "OCR pages",
                         "Size (bytes)", "SHA-256", "Seconds", "Risk level", "Risk score", "Issues",
                         "Missing clauses", "To renegotiate", "Review items", "Duplicate of", "Reading notes"]
FINDING_HEADERS = ["File", "Category", "Kind", "Severity", "Confidence", "Source", "Version", "Value",
                   "Page", "Start", "End", "Box", "Quote", "Note", "Advice", "Evidence"]
CONTRACT_HEADERS = ["File", "Status", "Counterparty", "Our role", "Level", "Score", "Top issues", *KEY_TERMS,
                    "Forum", "Term in force", "Next deadline", "Deadline", "Owner", "Decision", "Due"]
"""The Contracts sheet: one row a legal-ops lead works in; Owner, Decision and Due are theirs to fill."""
TYPED_TERMS = frozenset({"Agreement Date", "Effective Date", "Expiration Date", "Initial Term", "Renewal Term",
                         "Notice Period To Terminate Renewal"})
"""Key terms whose column holds dates or durations only, so it sorts and filters as such."""
ISSUE_HEADERS = ["File", "Severity", "Kind", "Category", "Issue", "Confidence", "Page", "Quote", "Suggested change"]
TOP_ISSUES = 3
KEY_TERM_EVIDENCE_HEADERS = ["File", "Key term", "Value", "Confidence", "How it was read", "Evidence"]
REVIEW_HEADERS = ["File", "Priority", "Category", "Reason", "Confidence", "Source", "Page", "Quote"]


def document_rows(assessed: list[Assessed], view: str) -> tuple[list[str], list[list]]:
    """One row per document: business columns for the summary view, every fact for the full view."""
    if view == "summary":
        return SUMMARY_DOCUMENT_HEADERS, [
            [doc.filename, doc.status, _level(doc, a), _score(doc, a), missing_clauses(a), renegotiate(a),
             len(a.review) if a else None, doc.reason]
            for doc, a in assessed
        ]
    return FULL_DOCUMENT_HEADERS, [
        [doc.id, doc.filename, doc.status, doc.stage, doc.reason, doc.kind, doc.page_count, doc.ocr_pages,
         doc.size_bytes, doc.sha256, round(sum(doc.timings.values()), 3), _level(doc, a), _score(doc, a),
         len(a.issues) if a else None, missing_clauses(a), renegotiate(a), len(a.review) if a else None,
         doc.duplicate_of, "; ".join(doc.notes) or None]
        for doc, a in assessed
    ]


def finding_rows(assessed: list[Assessed]) -> list[list]:
    """Every shown finding and every playbook issue, each with its evidence anchors."""
    rows = []
    for doc, a in assessed:
        if a is None:
            continue
        for m in a.shown():
            kind = "key term" if m.finding.category in KEY_TERMS else "clause"
            rows.append(_finding_row(doc, m.finding, kind, None, evidence_chain(m.evidence)))
        for issue in a.issues:
            rows.append(_finding_row(doc, issue.finding, issue.kind, issue.advice, ""))
    return rows


def contract_rows(assessed: list[Assessed], as_of: date) -> list[list]:
    """One row per contract, worst first: level, rounded score, its top issues in a phrase
    each, every key term as a typed cell, the forum, the term in force and the next deadline
    as of `as_of`."""
    ordered = sorted(assessed, key=lambda da: (_score(*da) is None, -(_score(*da) or 0.0)))
    return [
        [doc.filename, doc.status, counterparty(a) or None, a.sides.our_role if a else None, _level(doc, a),
         round(s) if (s := _score(doc, a)) is not None else None, top_issues(a),
         *(key_term_cell(a.key_terms.get(t)) if a else None for t in KEY_TERMS), *_calendar_cells(doc, a, as_of),
         None, None, None]
        for doc, a in ordered
    ]


def _calendar_cells(doc: DocumentResult, a: DocumentAssessment | None, as_of: date) -> list:
    """Forum, term in force, next deadline's date and kind."""
    if a is None:
        return [None] * 4
    law = a.key_terms.get("Governing Law")
    deadline = deadline_for(doc, a, as_of)
    return [(law.detail.get("forum") if law is not None else None) or None, term_in_force(a.key_terms, as_of).shown(),
            deadline.date if deadline else None, KIND_TITLES[deadline.kind] if deadline else None]


def counterparty(a: DocumentAssessment | None) -> str:
    """The other side's names ("Northwind Ltd; Jane Doe"): everyone but us, all parties when
    the team has not said who it is."""
    return "; ".join(p.name for p in a.sides.counterparties) if a else ""


def top_issues(a: DocumentAssessment | None) -> str:
    """The worst issues, one phrase each: "Non-Compete (high); Cap On Liability missing (medium)"."""
    if a is None:
        return ""
    phrases = [f"{i.finding.category}{' missing' if i.kind == 'missing' else ''} ({i.finding.severity})"
               for i in a.issues[:TOP_ISSUES]]
    return "; ".join(phrases)


def issue_rows(assessed: list[Assessed]) -> list[list]:
    """Every playbook issue, one row each, worst first within each contract."""
    return [
        [doc.filename, i.finding.severity, i.kind, i.finding.category, i.finding.note, round(i.finding.confidence, 2),
         i.finding.page if i.finding.end > i.finding.start else None, " ".join(i.finding.text.split()) or None,
         i.advice]
        for doc, a in assessed if a is not None for i in a.issues
    ]


@dataclass(frozen=True)
class WordsCell:
    """Words in a column of dates or durations ("not stated", "perpetual", "the Date of
    Installation"): the cell stays empty, so the column sorts and filters by its type, and the
    words are the cell's comment."""
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class DurationCell:
    """A duration as a spreadsheet holds it: a number of days to sort and filter by, shown
    as the words a lawyer reads ("successive 1-year periods")."""
    days: int
    text: str

    def __str__(self) -> str:
        return self.text


def key_term_cell(term: KeyTerm | None) -> object:
    """A key term as a typed cell: a date or a duration when the value is one; in a column of
    dates or durations anything else is words beside the data (WordsCell), elsewhere its text
    (a place, a conflict)."""
    if term is not None:
        if (day := parse_iso_date(term.value)) is not None:
            return day
        if (days := approximate_days(term.value)) is not None:
            return DurationCell(days, key_term_text(term))
    text = key_term_text(term) or None
    return WordsCell(text) if text and term is not None and term.category in TYPED_TERMS else text


def key_term_evidence_rows(assessed: list[Assessed]) -> list[list]:
    """Every key term of every document with its confidence and the quotes it rests on."""
    rows = []
    for doc, a in assessed:
        if a is None:
            continue
        for name in KEY_TERMS:
            term = a.key_terms.get(name)
            if term is None:
                continue
            confidence = round(term.finding.confidence, 2) if term.finding else None
            rows.append([doc.filename, name, key_term_text(term), confidence, how_read(term),
                         " | ".join(f"{q['role']} p. {q['page']}: {q['text']}" for q in quotes(term))])
    return rows


def review_rows(assessed: list[Assessed]) -> list[list]:
    """The batch's review queue, most urgent first."""
    items = [(doc, r) for doc, a in assessed if a is not None for r in a.review]
    items.sort(key=lambda dr: -dr[1].priority)
    return [[doc.filename, r.priority, r.finding.category, r.reason, r.finding.confidence, r.finding.source,
             r.finding.page, r.finding.text] for doc, r in items]




def missing_clauses(a: DocumentAssessment | None) -> str:
    """Required clauses the document lacks, comma-separated."""
    return ", ".join(i.finding.category for i in a.issues if i.kind == "missing") if a else ""


def renegotiate(a: DocumentAssessment | None) -> str:
    """What to ask the counterparty for: each risky or bad-valued clause with the playbook's advice."""
    if a is None:
        return ""
    return "; ".join(f"{i.finding.category}: {i.advice or i.finding.note}" for i in a.issues if i.kind != "missing")


def evidence_chain(evidence: list[Finding]) -> str:
    """Each source's evidence on one line: who, which version, how sure, where."""
    return "; ".join(f"{e.source} {e.version} {e.confidence:.2f} p. {e.page} [{e.start}-{e.end}]" for e in evidence)


def _finding_row(doc: DocumentResult, f: Finding, kind: str, advice: str | None, evidence: str) -> list:
    box = ", ".join(f"{v:.1f}" for v in f.box) if f.box else ""
    return [doc.filename, f.category, kind, f.severity, f.confidence, f.source, f.version, f.value, f.page or None,
            f.start, f.end, box, f.text, f.note, advice, evidence]


def _level(doc: DocumentResult, a: DocumentAssessment | None) -> str | None:
    return a.risk_level if a else doc.risk_level


def _score(doc: DocumentResult, a: DocumentAssessment | None) -> float | None:
    return a.risk_score if a else doc.risk_score
