"""What a key-term value is: a normalized value, how sure we are, and the quotes it rests on.

Span findings answer "where does the contract talk about its term?"; a TermValue answers
"what is the term?".  Reports sort and filter on `value`, the deadline calendar computes with
it, and `evidence` lets the report and the review app show how it was reached.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from pipelines.datamodel import NOT_STATED

VALUE_NOTE = "key-term value"
"""The note that marks a finding as a key term's value rather than a clause span; aggregation
takes the value from it, and predictions.jsonl leaves it out."""


@dataclass(frozen=True)
class Quote:
    """A span of the document text a value rests on, and the part it played ("term clause")."""

    start: int
    end: int
    role: str


@dataclass(frozen=True)
class TermValue:
    """One key term's value for a whole contract.

    `value` is normalized for machines: an ISO date, an ISO 8601 duration ("P1Y"), "perpetual",
    a place, "not stated", or for Parties `Name ("Short"); Name2 ("Short2")`.  `detail` holds the
    structure behind it (each party's role; the text a duration was written as; how an
    expiration date was computed), JSON-ready.
    """

    field: str
    value: str
    confidence: float
    evidence: tuple[Quote, ...] = ()
    detail: dict = field(default_factory=dict)

    @property
    def stated(self) -> bool:
        return self.value != NOT_STATED

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> TermValue:
        return cls(data["field"], data["value"], data["confidence"],
                   tuple(Quote(**q) for q in data.get("evidence", ())), data.get("detail") or {})
