"""Clause types taught from examples, and their example quotes, in the database (issue 44).

Plain functions on a Session, as the CLI and (later) the admin pages call them.  Names are
matched case aside, as CUAD's categories are; examples are keyed by their quote, so giving the
same quote twice adds nothing and a re-run of the same command changes nothing.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pipelines.clause_types.examples import Quote, clean_quote, quote_key
from pipelines.clause_types.names import ClauseTypeError, check_name, slug_of
from pipelines.datamodel import ClauseTypeStatus, DocumentStatus
from storage import schema
from storage.repository import load_text
from storage.schema import utcnow

MAX_DESCRIPTION = 2_000


@dataclass(frozen=True)
class TypeLine:
    """A clause type as `clausemill clauses` lists it."""

    name: str
    slug: str
    status: str
    description: str
    examples: int
    counter_examples: int
    created_by: str
    created_at: datetime
    trained: int  # the latest version's number; 0: never trained


@dataclass(frozen=True)
class ExampleLine:
    """One example (or counter-example) of a type, with where it came from."""

    id: int
    label: bool
    text: str
    source: str
    path: str | None
    start: int | None
    end: int | None
    added_by: str
    withdrawn: bool


@dataclass(frozen=True)
class Hit:
    """A segment of a contract's latest audit that a search found."""

    document_id: int
    path: str
    page: int
    start: int
    end: int
    text: str
    known: bool  # already an example (or counter-example) of the type searched for


@dataclass(frozen=True)
class Added:
    added: int
    already: int


def defined_names(session: Session) -> list[str]:
    """Every type ever defined, retired ones included: a name is never given twice."""
    return list(session.scalars(select(schema.ClauseType.name).order_by(schema.ClauseType.id)))


def taught_categories(session: Session) -> list[str]:
    """The types a reviewer may name as what a span is: every one not retired."""
    T = schema.ClauseType
    return list(session.scalars(select(T.name).where(T.status != ClauseTypeStatus.RETIRED).order_by(T.name)))


def description_of(session: Session, name: str) -> str:
    """A taught type's description, for its items' pages; empty when `name` is not one."""
    clause_type = find_type(session, name)
    return clause_type.description if clause_type is not None else ""


def type_by_slug(session: Session, slug: str) -> schema.ClauseType | None:
    return session.scalar(select(schema.ClauseType).where(schema.ClauseType.slug == slug))


def find_type(session: Session, name: str) -> schema.ClauseType | None:
    folded = " ".join(name.split()).casefold()
    return next((t for t in session.scalars(select(schema.ClauseType)) if t.name.casefold() == folded), None)


def get_type(session: Session, name: str) -> schema.ClauseType:
    clause_type = find_type(session, name)
    if clause_type is None:
        raise ClauseTypeError(f"no clause type is named {name!r}; `clausemill clauses` lists them")
    return clause_type


def define_type(session: Session, name: str, description: str | None, by: str) -> tuple[schema.ClauseType, bool]:
    """The type named `name`, created if it is new (then `description` is required); a
    description given for an existing type replaces its own.  Returns (type, created)."""
    text = " ".join((description or "").split())
    if len(text) > MAX_DESCRIPTION:
        raise ClauseTypeError(f"the description has {len(text):,} characters; at most {MAX_DESCRIPTION:,}")
    clause_type = find_type(session, name)
    if clause_type is not None:
        if text:
            clause_type.description = text
        return clause_type, False
    checked = check_name(name, defined_names(session))
    if not text:
        raise ClauseTypeError(f"a new clause type needs a description (--description): what a {checked} clause "
                              "does, as a reviewer should read it")
    slugs = set(session.scalars(select(schema.ClauseType.slug)))
    clause_type = schema.ClauseType(name=checked, slug=slug_of(checked, slugs), description=text,
                                    status=ClauseTypeStatus.DRAFT, created_by=by)
    session.add(clause_type)
    session.flush()
    return clause_type, True


def add_examples(session: Session, clause_type: schema.ClauseType, quotes: Iterable[Quote], by: str,
                 *, from_decisions: bool = False) -> Added:
    """Store the quotes as examples (or counter-examples) of the type.  A quote it already has
    with the same label is counted, not added again; a withdrawn one comes back; one it has
    with the other label is refused, since a quote cannot be both.  Quotes `from_decisions`
    never override what an admin withdrew or gave the other way: those are counted as there."""
    E = schema.ClauseTypeExample
    added = already = 0
    for quote in quotes:
        text = clean_quote(quote.text)
        key = quote_key(text)
        row = session.scalar(select(E).where(E.type_id == clause_type.id, E.key == key))
        if row is not None and from_decisions:
            already += 1
            continue
        if row is not None and row.withdrawn_at is None:
            if row.label != quote.label:
                kind = "an example" if row.label else "a counter-example"
                raise ClauseTypeError(f"{_short(text)!r} is already {kind} of {clause_type.name} (#{row.id}); "
                                      f"withdraw it first (`clausemill clauses withdraw {clause_type.name!r} {row.id}`)")
            already += 1
            continue
        if row is None:
            row = E(type_id=clause_type.id, key=key)
            session.add(row)
        row.label, row.text, row.source, row.withdrawn_at = quote.label, text, quote.source, None
        row.document_id, row.path, row.start, row.end = quote.document_id, quote.path, quote.start, quote.end
        row.added_by, row.added_at = by, utcnow()
        session.flush()
        added += 1
    return Added(added, already)


def withdraw_examples(session: Session, clause_type: schema.ClauseType, ids: Iterable[int]) -> int:
    """Withdraw examples by number; kept, not deleted, so a version trained on them stays
    reproducible.  An id that is not one of the type's examples is refused."""
    E, ids = schema.ClauseTypeExample, list(ids)
    rows = {r.id: r for r in session.scalars(select(E).where(E.type_id == clause_type.id, E.id.in_(ids)))}
    if missing := [i for i in ids if i not in rows]:
        raise ClauseTypeError(f"{clause_type.name} has no example numbered {', '.join(map(str, missing))}; "
                              f"`clausemill clauses show {clause_type.name!r}` numbers them")
    now, withdrawn = utcnow(), 0
    for row in rows.values():
        if row.withdrawn_at is None:
            row.withdrawn_at, withdrawn = now, withdrawn + 1
    return withdrawn


def set_retired(session: Session, clause_type: schema.ClauseType, retired: bool) -> None:
    """Retire a type (later audits leave it out; past reports keep it), or bring it back."""
    if retired:
        clause_type.status, clause_type.retired_at = ClauseTypeStatus.RETIRED, clause_type.retired_at or utcnow()
    else:
        trained = next_version_number(session, clause_type) > 1
        clause_type.status = ClauseTypeStatus.ACTIVE if trained else ClauseTypeStatus.DRAFT
        clause_type.retired_at = None


def list_types(session: Session) -> list[TypeLine]:
    T, E, V = schema.ClauseType, schema.ClauseTypeExample, schema.ClauseTypeVersion
    counts = {(type_id, label): n for type_id, label, n in session.execute(
        select(E.type_id, E.label, func.count()).where(E.withdrawn_at.is_(None)).group_by(E.type_id, E.label))}
    trained = dict(session.execute(select(V.type_id, func.max(V.number)).group_by(V.type_id)).all())
    return [TypeLine(t.name, t.slug, t.status.value, t.description, counts.get((t.id, True), 0), counts.get((t.id, False), 0),
                     t.created_by, t.created_at, trained.get(t.id, 0))
            for t in session.scalars(select(T).order_by(T.name))]


def examples_of(session: Session, clause_type: schema.ClauseType, *, withdrawn: bool = False) -> list[ExampleLine]:
    E = schema.ClauseTypeExample
    query = select(E).where(E.type_id == clause_type.id).order_by(E.label.desc(), E.id)
    if not withdrawn:
        query = query.where(E.withdrawn_at.is_(None))
    return [ExampleLine(r.id, r.label, r.text, r.source, r.path, r.start, r.end, r.added_by, r.withdrawn_at is not None)
            for r in session.scalars(query)]


def span_quote(session: Session, document_id: int, start: int, end: int, label: bool) -> Quote:
    """The words at characters start-end of an audited document, as a quote that remembers them."""
    document = session.get(schema.Document, document_id)
    if document is None:
        raise ClauseTypeError(f"no document has the number {document_id}")
    text = load_text(session, document_id)
    if not text:
        raise ClauseTypeError(f"document {document_id} ({document.filename}) has no text stored: it was not audited, "
                              "or its audit was pruned")
    if end > len(text):
        raise ClauseTypeError(f"document {document_id} ({document.filename}) has {len(text):,} characters; "
                              f"{start}-{end} runs past its end")
    return Quote(clean_quote(text[start:end], f"characters {start}-{end} of document {document_id}"), label, "span",
                 document.path, start, end, document_id)


def search_segments(session: Session, words: str, limit: int, clause_type: schema.ClauseType | None = None) -> list[Hit]:
    """Segments of each contract's latest finished audit that hold every word of `words` (case
    aside), in path and reading order: where an admin looks for examples in the portfolio."""
    terms = words.split()
    if not terms:
        raise ClauseTypeError("a search needs words")
    D, S = schema.Document, schema.Segment
    latest = select(func.max(D.id)).where(D.status == DocumentStatus.DONE).group_by(D.path).scalar_subquery()
    query = (select(D.id, D.path, S.page, S.start, S.end, S.text).join(S, S.document_id == D.id)
             .where(D.id.in_(latest), *(S.text.icontains(t, autoescape=True) for t in terms))
             .order_by(D.path, S.index).limit(limit))
    known: set[str] = set()
    if clause_type is not None:
        E = schema.ClauseTypeExample
        known = set(session.scalars(select(E.key).where(E.type_id == clause_type.id, E.withdrawn_at.is_(None))))
    return [Hit(r.id, r.path, r.page, r.start, r.end, r.text,
                quote_key(r.text) in known)
            for r in session.execute(query)]


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


# --- what a type trains on, and its versions --------------------------------------------------

@dataclass(frozen=True)
class PoolSegment:
    """A segment of an audited contract drawn as a negative: labelled 'not this type'."""

    document_id: int
    text: str


@dataclass(frozen=True)
class VersionLine:
    """A trained version as `clausemill clauses show` lists it."""

    number: int
    version: str
    base_version: str
    examples: int
    counter_examples: int
    negatives: int
    metrics: dict
    created_by: str
    created_at: datetime
    size: int


def negative_pool(session: Session, clause_type: schema.ClauseType, size: int, seed: int,
                  contracts: int = 200) -> list[PoolSegment]:
    """`size` segments drawn from the latest finished audits of up to `contracts` contracts (a
    seeded draw, so the same portfolio gives the same pool and its encoding is cached), leaving
    out the type's own examples and the segments that overlap a span picked as one."""
    import random

    D, S, E = schema.Document, schema.Segment, schema.ClauseTypeExample
    latest = sorted(session.scalars(
        select(func.max(D.id)).where(D.status == DocumentStatus.DONE).group_by(D.path)))
    chosen = sorted(random.Random(seed).sample(latest, min(contracts, len(latest))))
    examples = session.execute(select(E.key, E.document_id, E.start, E.end).where(E.type_id == clause_type.id)).all()
    keys = {e.key for e in examples}
    spans = [(e.document_id, e.start, e.end) for e in examples if e.document_id is not None and e.start is not None]
    rows = [r for r in session.execute(select(S.document_id, S.text, S.start, S.end).where(S.document_id.in_(chosen))
                                       .order_by(S.document_id, S.index))
            if quote_key(r.text) not in keys
            and not any(d == r.document_id and s < r.end and r.start < e for d, s, e in spans)]
    picked = sorted(random.Random(seed + 1).sample(range(len(rows)), min(size, len(rows))))
    return [PoolSegment(rows[i].document_id, rows[i].text) for i in picked]


def add_version(session: Session, clause_type: schema.ClauseType, number: int, version: str, base_version: str,
                weights: bytes, metrics: dict, by: str) -> None:
    if clause_type.status == ClauseTypeStatus.DRAFT:
        clause_type.status = ClauseTypeStatus.ACTIVE  # audits submitted from now on run it
    session.add(schema.ClauseTypeVersion(
        type_id=clause_type.id, number=number, version=version, base_version=base_version, weights=weights,
        examples=metrics["examples"], counter_examples=metrics["counter_examples"], negatives=metrics["negatives"],
        metrics=metrics, created_by=by))
    session.flush()


def next_version_number(session: Session, clause_type: schema.ClauseType) -> int:
    V = schema.ClauseTypeVersion
    return (session.scalar(select(func.max(V.number)).where(V.type_id == clause_type.id)) or 0) + 1


def versions_of(session: Session, clause_type: schema.ClauseType) -> list[VersionLine]:
    V = schema.ClauseTypeVersion
    rows = session.execute(select(V.number, V.version, V.base_version, V.examples, V.counter_examples, V.negatives,
                                  V.metrics, V.created_by, V.created_at, func.length(V.weights))
                           .where(V.type_id == clause_type.id).order_by(V.number))
    return [VersionLine(*row) for row in rows]


def version_weights(session: Session, version: str) -> bytes | None:
    V = schema.ClauseTypeVersion
    return session.scalar(select(V.weights).where(V.version == version))


def pinned_options(session: Session, options: dict, base_version: str | None) -> dict:
    """A batch's options with the taught clause types it runs with, pinned at submission: every
    type not retired, at its latest version trained for checkpoint `base_version` (None: the
    model is off, so none), and the names of every type defined (a playbook may name them).  A
    batch keeps its pins, so retiring or retraining a type later never changes what an earlier
    batch found or reports."""
    options = {k: v for k, v in options.items() if k not in ("clause_types", "clause_types_defined")}
    defined = defined_names(session)
    if not defined:
        return options
    options["clause_types_defined"] = defined  # what its playbook may name (steps.playbook_for)
    if base_version is None:
        return options
    T, V = schema.ClauseType, schema.ClauseTypeVersion
    latest = select(V.type_id, func.max(V.number).label("number")).group_by(V.type_id).subquery()
    rows = session.execute(
        select(T.name, V.version, V.metrics).join(latest, latest.c.type_id == T.id)
        .join(V, (V.type_id == T.id) & (V.number == latest.c.number))
        .where(T.status != ClauseTypeStatus.RETIRED, V.base_version == base_version).order_by(T.name))
    pins = {name: {"version": version, "young": bool((metrics or {}).get("young"))} for name, version, metrics in rows}
    return {**options, "clause_types": pins} if pins else options


def learning_counts(session: Session, name: str, version: str) -> tuple[int, int]:
    """(open, decided) learning items asked about `version` of the taught type `name`: what its
    own review budget has left (pipelines.review.budget.LEARNING_OPEN, LEARNING_PER_VERSION).
    Only the type's own items are read: every aggregation of its batches asks."""
    R = schema.ReviewItem
    open_ = decided = 0
    for status, evidence in session.execute(select(R.status, R.evidence).where(R.category == name)):
        if ((evidence or {}).get("priority_parts") or {}).get("learning") == version:
            open_, decided = (open_ + 1, decided) if status == "open" else (open_, decided + 1)
    return open_, decided
