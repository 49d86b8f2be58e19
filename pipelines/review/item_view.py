"""What the item page shows a reviewer about one review item, gathered from the database.

The item holds the quote and its priority's parts; the rest is looked up where the audit
left it: the quote's neighbouring text from the document's pages, where the words sit on the
page (their boxes, one per line of the quote, so the highlight hugs the text rather than the
segment), and from the stored assessment what the machine said (confidence, source and
version, a key term's value) and the playbook issue the finding raises.  An item is matched
to the assessment's findings by category and overlapping span, as decisions are
(pipelines.review.decisions).

While a double-reviewed item waits for its second decision, a reviewer's page shows only
their own decisions in its trail: the second review is independent only if the first one
is not on the page.  Admins see the whole trail.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from pydantic import AwareDatetime
from sqlalchemy import ColumnElement, and_, or_, select
from sqlalchemy.orm import Session

from pipelines.categories import CUAD_CATEGORIES, KEY_TERMS
from pipelines.category_descriptions import description
from pipelines.datamodel import NOT_STATED, PAGE_SEPARATOR, Box, Finding, KeyTerm
from pipelines.playbook.values import says_no
from pipelines.review.budget import same_evidence
from pipelines.review.decisions import question_of
from pipelines.review.value_edits import FIELD_KINDS, choices
from pipelines.terms.display import how_read, key_term_text, quotes
from pipelines.terms.parties import format_parties
from pipelines.terms.renewal import kind_of
from pipelines.review.double_review import reviews_needed
from pipelines.utc import as_utc
from storage import clause_types
from storage.repository import results_of, stored_assessments, trail
from storage.schema import Document, Page, ReviewItem

CONTEXT_CHARS = 600
"""Neighbouring text shown on each side of the quote: a paragraph or two."""
LINE_TOLERANCE_PT = 3.0
"""Words whose tops differ by less than this are one line of the highlight."""
def correction_categories(session: Session) -> tuple[str, ...]:
    """What a correction may change the category to: CUAD's categories, the key terms, and the
    clause types the team taught (issue 44; retired ones left out)."""
    return tuple(sorted({*CUAD_CATEGORIES, *KEY_TERMS, *clause_types.taught_categories(session)}))


@dataclass(frozen=True)
class Machine:
    """The machine's call on the quoted finding, from the stored assessment."""

    confidence: float
    source: str
    version: str
    value: str | None


@dataclass(frozen=True)
class ValueQuestion:
    """What a value item asks for: the key term's value as read, how it was reached, the
    quotes it rests on, and the form the answer takes (pipelines.review.value_edits)."""

    kind: str
    """date, duration, renewal, parties, place or contract type."""
    read: str
    """The value in words, as reports show it ("March 1, 2021", "successive 1-year periods")."""
    normalized: str | None
    how: str
    quotes: list[dict]
    """The quotes the value was read from: role, page and text."""
    prefill: str
    """What the answer field starts with: the value read, in a form the reviewer can edit."""
    choices: tuple[str, ...]
    """Words the value may be instead of a date or a duration ("not stated", "perpetual")."""
    renewal_kind: str | None = None
    renewal_limit: int | None = None
    parties: list[dict] = field(default_factory=list)
    """The parties as read (name, short names, role), for Parties."""


@dataclass(frozen=True)
class PlaybookIssue:
    kind: str
    severity: str
    note: str | None
    advice: str | None


@dataclass(frozen=True)
class TrailEntry:
    id: int
    reviewer: str
    at: AwareDatetime
    action: str
    item_version: int
    previous: dict
    new: dict
    reason: str | None
    comment: str | None

    @property
    def summary(self) -> str:
        """What the decision changed, in a line: an accept changes nothing, a correction names
        each corrected field with its value before, an undo the decision it took back."""
        if self.action == "undo":
            return f"took back the {self.previous.get('action', 'last')} decision"
        if self.action == "reopen":
            return f"re-opened the item: the {self.previous.get('action', 'last')} decision no longer stands"
        if self.action != "correct":
            return ""
        evidence = self.previous.get("evidence") or {}
        changes = []
        if "category" in self.new:
            changes.append(f"category {self.previous.get('category')} → {self.new['category']}")
        if "start" in self.new:
            changes.append(f"span {evidence.get('start')}–{evidence.get('end')} → {self.new['start']}–{self.new['end']}")
        if "value" in self.new:
            changes.append(f"value → {self.new['value']}")
        return "; ".join(changes)


@dataclass(frozen=True)
class ItemView:
    id: int
    version: int
    status: str
    category: str
    description: str
    reason: str
    priority: float
    parts: dict
    document_id: int
    batch_id: str
    filename: str
    kind: str | None
    page: int | None
    page_count: int | None
    start: int | None
    end: int | None
    quote: str
    before: str
    """The document's text just before the quote (up to CONTEXT_CHARS, from a word)."""
    after: str
    before_cut: bool
    """Whether more text precedes `before` (the page shows an ellipsis there)."""
    after_cut: bool
    assignee: str | None
    claimed_by: str | None
    lease_until: AwareDatetime | None
    present_threshold: float | None
    machine: Machine | None
    issue: PlaybookIssue | None
    is_key_term: bool
    question: str = "presence"
    """What the item asks: "presence" (is this the clause?) or "value" (what is the key term's value?)."""
    value: ValueQuestion | None = None
    """For a value item, what it asks for."""
    reviews_needed: int = 1
    """2 when two reviewers decide the item independently (its batch's double-review share)."""
    boxes: list[Box] = field(default_factory=list)
    previous_id: int | None = None
    next_id: int | None = None
    trail: list[TrailEntry] = field(default_factory=list)

    @property
    def has_image(self) -> bool:
        """A PDF page can be drawn; a .txt or .docx has no page image, only its text."""
        return self.kind == "pdf" and self.page is not None


def visible(visible_to: str | None) -> list[ColumnElement[bool]]:
    """A reviewer sees items assigned to them or to nobody; None (an admin) sees all."""
    if visible_to is None:
        return []
    return [or_(ReviewItem.assignee == visible_to, ReviewItem.assignee.is_(None))]


def check_visible(session: Session, item_id: int, visible_to: str | None) -> None:
    """LookupError when this viewer may not see the item: the check alone, for a lease renewal
    or a decision that needs none of the page's context."""
    if session.scalar(select(ReviewItem.id).where(ReviewItem.id == item_id, *visible(visible_to))) is None:
        raise LookupError(f"no review item {item_id}")


def load_item(session: Session, item_id: int, visible_to: str | None, now: datetime) -> ItemView:
    """The item as its page shows it; LookupError when there is none this viewer may see."""
    item = session.scalars(select(ReviewItem).where(ReviewItem.id == item_id, *visible(visible_to))).first()
    if item is None:
        raise LookupError(f"no review item {item_id}")
    document = session.get(Document, item.document_id)
    assert document is not None  # the foreign key cascades
    evidence = dict(item.evidence or {})
    start, end, page = _int(evidence.get("start")), _int(evidence.get("end")), _int(evidence.get("page"))
    pages = list(session.execute(select(Page.number, Page.text, Page.words)
                                 .where(Page.document_id == results_of(document)).order_by(Page.number)))
    text = PAGE_SEPARATOR.join(p.text for p in pages)
    spanned = start is not None and end is not None and 0 <= start < end <= len(text)
    quote = text[start:end] if spanned else str(evidence.get("text", ""))
    before, after = (_context_before(text, start), _context_after(text, end)) if spanned else ("", "")
    before_cut, after_cut = spanned and start - len(before) > 0, spanned and end + len(after) < len(text)
    assessment = dict(stored_assessments(session, [document]).get(document.id, {}))
    quoted = Finding(item.category, quote, start or 0, end or 0, page or 1, 0.0, "", "")
    merged = _finding_on(quoted, [m["finding"] for m in assessment.get("findings", [])])
    issue = _issue_on(quoted, assessment.get("issues", []))
    boxes = _line_boxes(pages, page, start, end) if spanned and document.kind == "pdf" else []
    if not boxes and merged is not None and merged.box is not None and merged.page == page:
        boxes = [merged.box]
    key_term = assessment.get("key_terms", {}).get(item.category) or {}
    if question_of(evidence) == "value" and key_term.get("finding"):
        merged = Finding.from_dict(key_term["finding"])  # the value's own call, not the clause's
    lease_until = as_utc(item.lease_until) if item.lease_until is not None and item.lease_until > now else None
    previous_id, next_id = _neighbours(session, item, visible_to)
    needed = reviews_needed(evidence)
    decisions = trail(session, item.id)
    if needed > 1 and item.status == "open" and visible_to is not None:
        decisions = [d for d in decisions if d.reviewer == visible_to]
    return ItemView(
        id=item.id, version=item.version, status=item.status, category=item.category,
        description=description(item.category) or clause_types.description_of(session, item.category),
        reason=item.reason, priority=item.priority,
        parts=dict(evidence.get("priority_parts") or {}), document_id=document.id, batch_id=document.batch_id,
        filename=document.filename, kind=document.kind, page=page, page_count=document.page_count, start=start,
        end=end, quote=quote, before=before, after=after, before_cut=before_cut, after_cut=after_cut,
        assignee=item.assignee,
        claimed_by=item.claimed_by if lease_until else None, lease_until=lease_until,
        present_threshold=(assessment.get("thresholds") or {}).get("present"),
        machine=None if merged is None else Machine(merged.confidence, merged.source, merged.version,
                                                     merged.value or key_term.get("value")),
        issue=issue,
        is_key_term=item.category in KEY_TERMS, question=question_of(evidence),
        value=_value_question(item.category, key_term) if question_of(evidence) == "value" else None,
        reviews_needed=needed, boxes=boxes, previous_id=previous_id,
        next_id=next_id,
        trail=[TrailEntry(d.id, d.reviewer, as_utc(d.created_at), d.action, d.item_version, dict(d.previous or {}),
                          dict(d.new or {}), d.reason, d.comment) for d in decisions])


def _value_question(field: str, stored: dict) -> ValueQuestion:
    """The value item's question from the stored assessment's key term (empty where the
    contract was read as not stating it)."""
    finding = Finding.from_dict(stored["finding"]) if stored.get("finding") else None
    term = KeyTerm(field, stored.get("value"), finding, stored.get("basis") or "read")
    detail = term.detail
    normalized = term.value
    if FIELD_KINDS.get(field) == "parties":
        prefill = "\n".join(format_parties([p]) for p in detail.get("parties") or [])
    elif normalized and normalized != NOT_STATED:
        prefill = detail.get("text") if FIELD_KINDS.get(field) in ("duration", "renewal") and detail.get("text") \
            else normalized
    else:
        prefill = ""
    kind = kind_of(detail) if field == "Renewal Term" and term.stated and not says_no(normalized) else None
    return ValueQuestion(FIELD_KINDS.get(field, "place"), key_term_text(term) or NOT_STATED, normalized, how_read(term),
                         quotes(term), " ".join(str(prefill).split()) if FIELD_KINDS.get(field) != "parties" else prefill,
                         choices(field), kind, detail.get("limit") if kind is not None else None,
                         list(detail.get("parties") or []) if FIELD_KINDS.get(field) == "parties" else [])


@dataclass(frozen=True)
class Word:
    """A word on a page: its offsets into the document's text, its box in points, its text."""

    start: int
    end: int
    x0: float
    top: float
    x1: float
    bottom: float
    text: str


@dataclass(frozen=True)
class PageWords:
    """One page of an item's document as the page image's word layer needs it: its size in
    points and each word's document offsets, box and text, so a reviewer selects words on the
    image itself (a selection is a span, as in the quote box) with no PDF engine in the browser."""

    number: int
    width: float
    height: float
    words: list[Word]


def page_words(session: Session, item_id: int, visible_to: str | None, number: int) -> PageWords:
    """Page `number` of the item's document with its words; LookupError for an item this viewer
    cannot see or a page the document does not have."""
    item = session.scalars(select(ReviewItem).where(ReviewItem.id == item_id, *visible(visible_to))).first()
    if item is None:
        raise LookupError(f"no review item {item_id}")
    document = session.get(Document, item.document_id)
    assert document is not None  # the foreign key cascades
    offset = 0
    for row in session.execute(select(Page.number, Page.text, Page.words, Page.width, Page.height)
                               .where(Page.document_id == results_of(document)).order_by(Page.number)):
        if row.number == number:
            words = [Word(offset + w[1], offset + w[2], w[3], w[4], w[5], w[6], str(w[0])) for w in row.words]
            return PageWords(number, row.width, row.height, words)
        offset += len(row.text) + len(PAGE_SEPARATOR)
    raise LookupError(f"the document has no page {number}")


def _int(value: object) -> int | None:
    return value if isinstance(value, int) else None


def _context_before(text: str, start: int) -> str:
    """Up to CONTEXT_CHARS before the quote, starting at a word: exactly the text that
    precedes it, so a selection in it maps back to document offsets."""
    if start <= CONTEXT_CHARS:
        return text[:start]
    window = text[start - CONTEXT_CHARS:start]
    return window[window.find(" ") + 1:]


def _context_after(text: str, end: int) -> str:
    window = text[end:end + CONTEXT_CHARS]
    if end + CONTEXT_CHARS >= len(text):
        return window
    return window[:window.rfind(" ")]


def _finding_on(quoted: Finding, findings: list[dict]) -> Finding | None:
    """The most confident stored finding of the item's category on the item's span."""
    found = [f for f in map(Finding.from_dict, findings) if f.category == quoted.category and same_evidence(f, quoted)]
    return max(found, key=lambda f: f.confidence, default=None)


def _issue_on(quoted: Finding, issues: list[dict]) -> PlaybookIssue | None:
    """The playbook issue raised by a finding on the item's span, if any (the stored issue
    holds the finding it rests on, whose severity and note say what is wrong)."""
    for issue in issues:
        f = Finding.from_dict(issue["finding"])
        if f.category == quoted.category and same_evidence(f, quoted):
            return PlaybookIssue(issue["kind"], f.severity, f.note, issue.get("advice"))
    return None


def _line_boxes(pages, page: int | None, start: int, end: int) -> list[Box]:  # type: ignore[no-untyped-def]
    """One box per line of the quote on its page, from the page's word boxes (page offsets:
    the document's offsets less where the page starts in the joined text)."""
    offset = 0
    for row in pages:
        if row.number == page:
            words = [w for w in row.words if w[1] < end - offset and w[2] > start - offset]
            lines: list[list[float]] = []
            for _, _, _, x0, top, x1, bottom in sorted(words, key=lambda w: (w[4], w[3])):
                if lines and abs(lines[-1][1] - top) < LINE_TOLERANCE_PT:
                    line = lines[-1]
                    line[0], line[2], line[3] = min(line[0], x0), max(line[2], x1), max(line[3], bottom)
                else:
                    lines.append([x0, top, x1, bottom])
            return [(a, b, c, d) for a, b, c, d in lines]
        offset += len(row.text) + len(PAGE_SEPARATOR)
    return []


def _neighbours(session: Session, item: ReviewItem, visible_to: str | None) -> tuple[int | None, int | None]:
    """The items before and after this one in the queue's order (most urgent first, then id),
    whatever their status: j / k walk the queue as the listing shows it with status "all"."""
    after = or_(ReviewItem.priority < item.priority, and_(ReviewItem.priority == item.priority, ReviewItem.id > item.id))
    before = or_(ReviewItem.priority > item.priority, and_(ReviewItem.priority == item.priority, ReviewItem.id < item.id))
    following = session.scalar(select(ReviewItem.id).where(after, *visible(visible_to))
                               .order_by(ReviewItem.priority.desc(), ReviewItem.id).limit(1))
    preceding = session.scalar(select(ReviewItem.id).where(before, *visible(visible_to))
                               .order_by(ReviewItem.priority.asc(), ReviewItem.id.desc()).limit(1))
    return preceding, following
