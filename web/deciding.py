"""A reviewer's decision as the item page's form or the API sends it, turned into a call of
pipelines.review.queue.decide.

A correction names only what changed, compared with what the page showed: the category, the
span (with the text it now covers, read from the document) or a key term's normalized value.
The form always sends every field, prefilled, so an untouched field must not count as a
correction: a value sent back unchanged would otherwise turn a category correction into a
value correction (pipelines.review.decisions reads a value first).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from pipelines.review.item_view import ItemView, check_visible, correction_categories, load_item
from pipelines.review.queue import Decision, decide
from pipelines.review.value_edits import edited_value
from storage.repository import load_text


@dataclass(frozen=True)
class Fields:
    """What a decision form carries besides the action and the version; blank means unsent."""

    category: str | None = None
    start: str | int | None = None
    end: str | int | None = None
    value: str | None = None
    reason: str | None = None
    comment: str | None = None
    renewal_kind: str | None = None
    renewal_limit: str | int | None = None


ANSWERS: tuple[str, ...] = ("yes", "no", "other", "elsewhere", "confirm", "value")
"""The item page's answers: a clause item's numbered "yes", "no", "it's another clause" and
"it's here, but the words are elsewhere"; a value item's "confirm" and "the right value"."""


def answered(answer: str, fields: Fields) -> tuple[str, Fields]:
    """The page's answer as an action and only the fields that answer uses: the form sends
    every field, prefilled, and "another clause" must not also move the span."""
    if answer not in ANSWERS:
        raise ValueError("choose an answer: " + ", ".join(f"{i} {a}" for i, a in enumerate(ANSWERS[:4], 1)))
    comment = fields.comment
    if answer == "no":
        return "reject", Fields(reason=fields.reason, comment=comment)
    if answer == "other":
        if not (fields.category or "").strip():
            raise ValueError("say which clause it is: type its name in the box beside “It's another clause”")
        return "correct", Fields(category=fields.category, comment=comment)
    if answer == "elsewhere":
        if not (str(fields.start or "").strip() and str(fields.end or "").strip()):
            raise ValueError("select the words where the clause is, in the quote or on the page")
        return "correct", Fields(start=fields.start, end=fields.end, comment=comment)
    if answer == "value":
        return "correct", Fields(value=fields.value, comment=comment, renewal_kind=fields.renewal_kind,
                                 renewal_limit=fields.renewal_limit)
    return "accept", Fields(comment=comment)


def record(session: Session, item_id: int, reviewer: str, visible_to: str | None, action: str, version: int,
           fields: Fields, now: datetime) -> Decision:
    """Decide the item; raises decide's errors (ReviewConflict, NotYours, ValueError) and
    LookupError for an item this reviewer cannot see."""
    if any(isinstance(v, str) and "\x00" in v for v in vars(fields).values()):
        raise ValueError("a decision's text must not contain NUL characters")
    if action == "correct":  # only a correction compares with what the page showed
        new = correction(session, load_item(session, item_id, visible_to, now), fields)
    else:
        check_visible(session, item_id, visible_to)
        new = None
    reason = (fields.reason or "").strip() or None if action == "reject" else None
    comment = (fields.comment or "").strip() or None
    return decide(session, item_id, reviewer, action, version, now, new=new, reason=reason,  # type: ignore[arg-type]
                  comment=comment)


def correction(session: Session, view: ItemView, fields: Fields) -> dict:
    """The corrected values that differ from the item's (empty when nothing changed, which
    decide refuses with its own message)."""
    if view.value is not None:
        return value_answer(view, fields)
    new: dict = {}
    category = (fields.category or "").strip()
    if category and category != view.category:
        if category not in correction_categories(session):
            raise ValueError(f"{category!r} is not a category clausemill knows")
        new["category"] = category
    start, end = _offset(fields.start, "start"), _offset(fields.end, "end")
    if (start, end) != (None, None) and (start, end) != (view.start, view.end):
        if start is None or end is None:
            raise ValueError("a corrected span needs both its start and its end")
        text = load_text(session, view.document_id)
        if not 0 <= start < end <= len(text):
            raise ValueError(f"the span {start}-{end} is not inside the document (0-{len(text)})")
        new.update(start=start, end=end, text=text[start:end])
    value = (fields.value or "").strip()
    current = view.machine.value if view.machine else None
    if value and value != current:
        new["value"] = value
    return new


def value_answer(view: ItemView, fields: Fields) -> dict:
    """A value item's answer: the value typed, normalized with its structure; the value read,
    typed again unchanged, is a confirmation, not a correction."""
    assert view.value is not None
    edit = edited_value(view.category, fields.value or "", fields.renewal_kind, fields.renewal_limit,
                        {"parties": _machine_parties(view)})
    same_kind = view.value.renewal_kind == edit.detail.get("kind") and view.value.renewal_limit == edit.detail.get("limit")
    if edit.value == view.value.normalized and (view.category != "Renewal Term" or same_kind):
        raise ValueError(f"that is the {view.category} as read: confirm it (a) rather than correct it")
    return {"value": edit.value, "detail": edit.detail}


def _machine_parties(view: ItemView) -> list[dict]:
    """The parties as read, so a party typed again keeps the role read for it."""
    return view.value.parties if view.value is not None else []


def _offset(raw: str | int | None, name: str) -> int | None:
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"the {name} of a span is a character offset (a whole number), not {raw!r}") from None
