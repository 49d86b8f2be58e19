"""The values that flow between pipeline stages.

Stages are plain functions over these dataclasses so they can be tested without Celery or a
database; storage/ maps them to tables and workers/ moves ids (never these values) between
processes.  Coordinates are PDF points with the origin at the page's top-left corner.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

from pipelines.dag import Stage

PAGE_SEPARATOR = "\n\n"
"""Joins page texts into the document text; document char offsets count it."""

Box = tuple[float, float, float, float]
"""(x0, top, x1, bottom) in PDF points, origin top-left."""

DocumentKind = Literal["pdf", "txt", "docx"]
TextSource = Literal["text-layer", "ocr", "plain"]


class DocumentFailed(Exception):
    """A document cannot go on through the pipeline; the reason is shown to the user.

    Stages raise it for problems of the document itself (corrupt, encrypted, empty, over
    limits, OCR failure).  Task wrappers turn it into a `failed` document row instead of a
    failed task, so one bad file never breaks its batch.
    """

    def __init__(self, stage: Stage, reason: str) -> None:
        super().__init__(f"{stage}: {reason}")
        self.stage = Stage(stage)
        self.reason = reason


class AnalyserSkipped(Exception):
    """One analyser could not give this document its findings (the model ran past its time
    limit); the document goes on with the others', and `note` tells its report so."""

    def __init__(self, note: str) -> None:
        super().__init__(note)
        self.note = note


@dataclass(frozen=True)
class FileFacts:
    """What ingest learns about an input file before any parsing."""

    sha256: str
    size_bytes: int
    kind: DocumentKind
    page_count: int
    notes: tuple[str, ...] = ()  # what reading it took: "PDF repaired: ...", "text decoded as UTF-16 ..."


@dataclass(frozen=True)
class Word:
    """One word of a page with its position in the page text and on the page."""

    text: str
    start: int
    end: int
    box: Box


@dataclass
class PageText:
    """The text of one page, from its text layer, from OCR, or from a plain-text file."""

    number: int  # 1-based
    text: str
    words: list[Word] = field(default_factory=list)
    source: TextSource = "text-layer"
    width: float = 0.0
    height: float = 0.0
    unreadable_layer: bool = False  # a text layer was there but was mojibake, so the page goes to OCR

    @property
    def needs_ocr(self) -> bool:
        """A PDF page whose text layer holds no words must be OCRed."""
        return self.source == "text-layer" and not self.text.strip()


@dataclass(frozen=True)
class Segment:
    """A clause or sentence of the document: the unit rules and the model classify."""

    index: int
    text: str
    start: int  # char offsets in document_text(pages)
    end: int
    page: int
    box: Box | None = None


# The source of the model's wider spans (models/widening.py): alternative candidates for a
# clause it found, which aggregation keeps apart instead of merging into that clause.
WIDER_SPAN_SOURCE = "model-span"
REVIEWER_SOURCE = "reviewer"
"""The source of a finding a reviewer decided (pipelines.review.decisions): what they confirmed
stands over the machine's checks of it."""


@dataclass
class Finding:
    """One piece of evidence that a document has a clause or key term.

    `source` names who found it ("rules", "key-terms", "key-term values", "model", "playbook",
    or several joined by "+" after aggregation); `version` records the rule pack or model
    version so a finding can always be traced to what produced it.
    """

    category: str
    text: str
    start: int
    end: int
    page: int
    confidence: float
    source: str
    version: str
    box: Box | None = None
    severity: str = "info"
    value: str | None = None  # normalized key-term value (a date, a jurisdiction, ...)
    note: str | None = None
    detail: dict | None = None  # a key-term value's structure and evidence (pipelines.terms)

    @property
    def reviewed(self) -> bool:
        """A reviewer's decision is among its evidence (alone, or merged: "model+reviewer")."""
        return REVIEWER_SOURCE in self.source.split("+")

    def to_dict(self) -> dict:
        """asdict(self), field by field: an assessment holds ~2,000 findings with the ranked
        tail, and asdict's generic recursion over them was a sixth of the aggregate stage."""
        return {"category": self.category, "text": self.text, "start": self.start, "end": self.end, "page": self.page,
                "confidence": self.confidence, "source": self.source, "version": self.version, "box": self.box,
                "severity": self.severity, "value": self.value, "note": self.note,
                "detail": copy.deepcopy(self.detail) if self.detail is not None else None}

    @classmethod
    def from_dict(cls, data: dict) -> Finding:
        """The Finding that to_dict() wrote (JSON turns its box tuple into a list)."""
        box = data.get("box")
        return cls(**{**data, "box": tuple(box) if box is not None else None})


NOT_STATED = "not stated"
"""The honest value of a term the contract leaves open: a blank date line, no renewal."""


@dataclass
class MergedFinding:
    """One clause or key term as found: the tightest quote, plus every piece of evidence for it.

    `finding` carries the merged confidence and joined source ("rules+model"); `evidence`
    keeps each source's own finding so the evidence chain can be shown and audited.
    """

    finding: Finding
    evidence: list[Finding]


@dataclass
class KeyTerm:
    """The value a document gives a key term, and how that value was chosen.

    `basis` is "read" (pipelines.terms read it from the whole text; `finding.detail` holds its
    structure and evidence), "single" (one piece of evidence), "agreed" (several, same value), "defined
    term", "preamble" or "signature block" (that evidence outranked different values),
    "conflict" (no way to choose: `value` and `finding` are None), "quote" (evidence without a
    normalized value) or "listed" (multi-valued terms such as Parties).  `candidates` holds,
    in document order, the competing values whenever values differed, and every party for
    Parties.
    """

    category: str
    value: str | None
    finding: Finding | None
    basis: str
    candidates: list[Finding] = field(default_factory=list)

    @property
    def conflict(self) -> bool:
        return self.basis == "conflict"

    @property
    def stated(self) -> bool:
        """Whether the contract gives the term a value (not a blank, not a conflict)."""
        return self.value is not None and self.value != NOT_STATED

    @property
    def detail(self) -> dict:
        return (self.finding.detail if self.finding is not None else None) or {}


def document_text(pages: list[PageText]) -> tuple[str, list[int]]:
    """The whole document's text and the char offset where each page starts in it."""
    starts: list[int] = []
    offset = 0
    for page in pages:
        starts.append(offset)
        offset += len(page.text) + len(PAGE_SEPARATOR)
    return PAGE_SEPARATOR.join(p.text for p in pages), starts


class DocumentStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    DUPLICATE = "duplicate"  # same bytes as an earlier document of the batch: analysed once

    @property
    def ended(self) -> bool:
        return self in TERMINAL_STATUSES


TERMINAL_STATUSES: frozenset[DocumentStatus] = frozenset(
    {DocumentStatus.DONE, DocumentStatus.FAILED, DocumentStatus.DUPLICATE}
)


class BatchStatus(StrEnum):
    RUNNING = "running"
    DONE = "done"  # every document ended (done, failed or duplicate)


class BatchOrigin(StrEnum):
    """Who submitted a batch: a person (`clausemill audit`), the drop folder, or a schedule."""

    AUDIT = "audit"
    WATCH = "watch"
    NIGHTLY = "nightly"


class IntakeState(StrEnum):
    """A file dropped in a watched inbox, from its claim to the outbox folder it ends in."""

    CLAIMED = "claimed"  # renamed into the work folder and recorded, not yet in a batch
    SUBMITTED = "submitted"  # its document is in a batch
    PROCESSED = "processed"
    FAILED = "failed"
    DUPLICATE = "duplicate"  # same bytes as a contract already audited

    @property
    def ended(self) -> bool:
        return self in (IntakeState.PROCESSED, IntakeState.FAILED, IntakeState.DUPLICATE)


class ClauseTypeStatus(StrEnum):
    """A clause type taught from examples (issue 44), from its definition to its retirement."""

    DRAFT = "draft"  # defined, with examples; no trained version yet
    ACTIVE = "active"  # trained: audits submitted since run its latest version
    RETIRED = "retired"  # left out of later audits; past reports keep it


class SkipReason(StrEnum):
    """Why a scheduled window did not run: the closed set metrics label skips with."""

    MISSED = "missed"  # more than 24 h late: not replayed
    OVERLAP = "overlap"  # the previous run still held the schedule


class RunState(StrEnum):
    """One scheduled run (one schedule window)."""

    RUNNING = "running"
    DONE = "done"
    SKIPPED = "skipped"  # the previous run still held the schedule, or the window was too old
    FAILED = "failed"


@dataclass
class DocumentResult:
    """Everything known about one document of a batch, as reports need it."""

    id: int
    filename: str
    path: str
    status: DocumentStatus
    stage: Stage | None = None
    reason: str | None = None
    sha256: str | None = None
    kind: str | None = None
    size_bytes: int | None = None
    page_count: int | None = None
    ocr_pages: int = 0
    timings: dict[str, float] = field(default_factory=dict)  # stage -> seconds
    findings: list[Finding] = field(default_factory=list)
    risk_score: float | None = None
    risk_level: str | None = None
    duplicate_of: str | None = None
    notes: list[str] = field(default_factory=list)
    """What reading the file took (a repair, an encoding), from ingest's facts."""

    def __post_init__(self) -> None:
        self.status = DocumentStatus(self.status)
        self.stage = Stage(self.stage) if self.stage else None


@dataclass
class BatchResult:
    """A batch and its documents, read back from storage for reporting."""

    id: str
    status: BatchStatus
    created_at: str
    finished_at: str | None
    documents: list[DocumentResult] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.status = BatchStatus(self.status)

    def count(self, status: DocumentStatus) -> int:
        return sum(1 for d in self.documents if d.status == status)


@dataclass(frozen=True)
class ReviewEntry:
    """One review item with the document it belongs to, as the queue shows it."""

    id: int
    document_id: int
    batch_id: str
    filename: str
    category: str
    reason: str
    priority: float
    status: str
    evidence: dict = field(default_factory=dict)  # {text, page, start, end, priority_parts}
    assignee: str | None = None
    claimed_by: str | None = None

    @property
    def priority_parts(self) -> dict:
        """How the priority was computed: stakes, weight, p_wrong (`sample` for the audit sample)."""
        return dict(self.evidence.get("priority_parts") or {})

    @property
    def severity(self) -> str | None:
        """The playbook stakes the priority was computed from, if recorded."""
        stakes = self.priority_parts.get("stakes")
        return stakes if isinstance(stakes, str) else None
