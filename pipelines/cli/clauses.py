"""`clausemill clauses`: clause types a legal team teaches from examples (issue 44).

A type is defined by a name, a description a reviewer reads, and example quotes: typed on the
command line, read from a file, cut from a contract already audited, or picked from a search of
the portfolio's audited contracts.  Quotes that are *not* examples (counter-examples) sharpen it.
"""
from __future__ import annotations

import getpass
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from pipelines.cli.console import console, shown
from pipelines.cli.data import CUAD
from pipelines.settings import get_settings

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

clauses = typer.Typer(
    help="Clause types taught from examples: list them (the default), `add` one or its examples, `train` it, "
         "`retrain` it with reviewers' decisions, `show` one, `withdraw` examples, `retire` a type, or install the "
         "`shipped` ones.",
    no_args_is_help=False, invoke_without_command=True, add_completion=False, pretty_exceptions_show_locals=False)

T = TypeVar("T")


@clauses.callback()
def list_all(context: typer.Context) -> None:
    """The clause types: status, examples and counter-examples, who defined them."""
    if context.invoked_subcommand is not None:
        return
    from storage.clause_types import list_types

    lines = _run(list_types, write=False)
    if not lines:
        console.print("No clause types yet. Define one with `clausemill clauses add NAME --description TEXT "
                      "--quote TEXT ...` (see `clausemill clauses add --help`).")
        return
    table = Table(title="Clause types")
    for column in ("Name", "Status", "Trained", "Examples", "Counter-examples", "Readiness", "Defined by"):
        table.add_column(column, overflow="fold")
    for line in lines:
        table.add_row(shown(line.name), line.status, f"v{line.trained}" if line.trained else "not yet",
                      str(line.examples), str(line.counter_examples), _readiness(line.examples),
                      shown(f"{line.created_by} {line.created_at:%Y-%m-%d}"))
    Console().print(table)


@clauses.command()
def add(
    name: Annotated[str, typer.Argument(help="The clause type, as reports and reviewers will read it "
                                             "(\"Force Majeure\"). A new name defines a new type.")],
    description: Annotated[Optional[str], typer.Option(
        help="What the clause does, as a reviewer reads it on an item page. Needed for a new type; given for an "
             "existing one, it replaces the old.")] = None,
    quote: Annotated[Optional[list[str]], typer.Option(help="An example's words (repeat for more).")] = None,
    quotes: Annotated[Optional[list[Path]], typer.Option(
        help="A file of examples: quotes separated by blank lines, or JSON lines {\"text\", \"path\", \"start\", "
             "\"end\"}.", exists=True, dir_okay=False)] = None,
    counter: Annotated[Optional[list[str]], typer.Option(help="Words that are NOT this clause (repeat for more).")] = None,
    counters: Annotated[Optional[list[Path]], typer.Option(
        help="A file of counter-examples, in the same form as --quotes.", exists=True, dir_okay=False)] = None,
    span: Annotated[Optional[list[str]], typer.Option(
        help="Characters of an audited contract, DOCUMENT:START-END (as 12:1040-1502; the review app's contract "
             "page and report.json give document numbers and offsets).")] = None,
    search: Annotated[Optional[str], typer.Option(
        help="Words to look for in the latest audit of every contract. Alone it lists numbered hits; with --pick "
             "the hits you name become examples.")] = None,
    pick: Annotated[Optional[str], typer.Option(help="With --search: the hits that are examples, as 1,4,7 or 2-5.")] = None,
    limit: Annotated[int, typer.Option(help="With --search: how many hits to list.", min=1, max=500)] = 30,
) -> None:
    """Define a clause type, or add examples to one.  Running the same command twice adds nothing
    twice."""
    from pipelines.clause_types.examples import Quote, parse_picks, parse_span, read_quotes_file
    from pipelines.clause_types.names import ClauseTypeError
    from storage import clause_types as store

    given = [quote, quotes, counter, counters, span]
    if search is not None and pick is None:
        if any(given) or description:
            _fail("--search without --pick only lists hits: run it alone, then again with --pick for the ones "
                  "that are examples")
        _list_hits(name, search, limit)
        return
    if pick is not None and search is None:
        _fail("--pick names hits of a --search: give the same --search with it")

    def read(path: Path, label: bool) -> list[Quote]:
        try:
            content = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ClauseTypeError(f"cannot read {path}: {error}") from None
        return read_quotes_file(content, str(path), label)

    def change(session: Session) -> str:
        clause_type, created = store.define_type(session, name, description, _who())
        given_quotes = [Quote(q, True) for q in quote or []] + [Quote(q, False) for q in counter or []]
        for path in quotes or []:
            given_quotes += read(path, True)
        for path in counters or []:
            given_quotes += read(path, False)
        for spec in span or []:
            given_quotes.append(store.span_quote(session, *parse_span(spec), label=True))
        if search is not None and pick is not None:
            hits = store.search_segments(session, search, limit, clause_type)
            for number in parse_picks(pick, len(hits)):
                hit = hits[number - 1]
                given_quotes.append(Quote(hit.text, True, "search", hit.path, hit.start, hit.end, hit.document_id))
        if created and not given_quotes:
            raise ClauseTypeError("a new clause type needs examples: --quote, --quotes FILE, --span or --search/--pick")
        result = store.add_examples(session, clause_type, given_quotes, _who())
        line = next(t for t in store.list_types(session) if t.name == clause_type.name)
        verb = "Defined" if created else "Updated"
        return (f"{verb} {clause_type.name}: {result.added} added"
                + (f", {result.already} already there" if result.already else "")
                + f". It has {line.examples} example(s) and {line.counter_examples} counter-example(s); "
                + _readiness(line.examples) + ".")

    console.print(shown(_run(change)))


@clauses.command()
def shipped(
    cuad: Annotated[Path, typer.Option(help="CUAD's folder, where the shipped examples' words are read from.")] = CUAD,
) -> None:
    """Install the clause types clausemill ships (Force Majeure, Indemnification, Confidentiality,
    Termination For Breach), trained and ready for audits.  Their examples are places in CUAD's
    training contracts (CC BY 4.0, The Atticus Project), read from `--cuad` when it is there.
    Running it again changes nothing."""
    from pipelines.clause_types.teaching import install_shipped

    _run_service(lambda: install_shipped(get_settings(), cuad, _who(), lambda line: console.print(shown(line))))


@clauses.command()
def train(name: Annotated[str, typer.Argument(help="The clause type.")]) -> None:
    """Train a new version of a clause type from its examples, against segments drawn from the
    contracts already audited, and say how good it is (cross-validated over its examples)."""
    from pipelines.clause_types.teaching import teach

    def work() -> None:
        taught = teach(get_settings(), name, _who(), lambda line: console.print(shown(line)))
        console.print(shown(f"Trained {taught.name} v{taught.number} ({taught.version}): {_quality(taught.metrics)}."))

    _run_service(work)


@clauses.command()
def retrain(name: Annotated[str, typer.Argument(help="The clause type.")]) -> None:
    """Fold reviewers' decisions on the type's items into its examples (a span accepted or
    corrected to it is an example; one rejected as not the clause, or corrected to another, is a
    counter-example), then train a new version."""
    from pipelines.clause_types.teaching import fold_decisions

    def work() -> None:
        folded = fold_decisions(get_settings(), name, _who())
        console.print(shown(f"{folded.added} reviewer decision(s) became examples"
                            + (f" ({folded.already} already were)" if folded.already else "") + "."))

    _run_service(work)
    train(name)


@clauses.command()
def show(
    name: Annotated[str, typer.Argument(help="The clause type.")],
    withdrawn: Annotated[bool, typer.Option(help="Also list withdrawn examples.")] = False,
) -> None:
    """A clause type: its description and its numbered examples and counter-examples."""
    from storage import clause_types as store

    def read(session: Session) -> tuple:
        clause_type = store.get_type(session, name)
        line = next(t for t in store.list_types(session) if t.name == clause_type.name)
        return line, store.examples_of(session, clause_type, withdrawn=withdrawn), store.versions_of(session, clause_type)

    line, examples, versions = _run(read, write=False)
    out = Console()
    out.print(shown(f"{line.name} ({line.status}; {_readiness(line.examples)})"), style="bold")
    out.print(shown(line.description))
    table = Table(title=f"{line.examples} example(s), {line.counter_examples} counter-example(s)")
    for column in ("#", "Kind", "Quote", "From"):
        table.add_column(column, overflow="fold")
    for example in examples:
        kind = "example" if example.label else "counter-example"
        if example.withdrawn:
            kind += " (withdrawn)"
        where = example.source if example.path is None else f"{example.source}: {example.path}"
        if example.start is not None:
            where += f" [{example.start}-{example.end}]"
        table.add_row(str(example.id), kind, shown(example.text), shown(f"{where}, by {example.added_by}"))
    out.print(table)
    if not versions:
        out.print("Not trained yet: `clausemill clauses train NAME`.")
        return
    trained = Table(title="Versions (quality cross-validated over the examples)")
    for column in ("Version", "Examples", "Counter", "Negatives", "Quality", "Trained"):
        trained.add_column(column, overflow="fold")
    for v in versions:
        trained.add_row(f"v{v.number} {v.version}", str(v.examples), str(v.counter_examples), str(v.negatives),
                        shown(_quality(v.metrics)), shown(f"{v.created_at:%Y-%m-%d %H:%M} by {v.created_by}"))
    out.print(trained)


@clauses.command()
def withdraw(
    name: Annotated[str, typer.Argument(help="The clause type.")],
    ids: Annotated[list[int], typer.Argument(help="The examples' numbers, as `clausemill clauses show` lists them.")],
) -> None:
    """Withdraw examples that were wrong.  They are kept, marked withdrawn, so what was trained on
    them can still be told."""
    from storage import clause_types as store

    withdrawn = _run(lambda session: store.withdraw_examples(session, store.get_type(session, name), ids))
    console.print(f"Withdrew {withdrawn} example(s).")


@clauses.command()
def retire(
    name: Annotated[str, typer.Argument(help="The clause type.")],
    undo: Annotated[bool, typer.Option(help="Bring a retired type back.")] = False,
) -> None:
    """Retire a clause type: later audits leave it out, past reports keep it.  Its name stays
    taken, so it never comes back meaning something else."""
    from storage import clause_types as store

    _run(lambda session: store.set_retired(session, store.get_type(session, name), not undo))
    console.print(shown(f"{'Brought back' if undo else 'Retired'} {name}."))


def _list_hits(name: str, words: str, limit: int) -> None:
    from storage import clause_types as store

    hits = _run(lambda session: store.search_segments(session, words, limit, store.find_type(session, name)),
                write=False)
    if not hits:
        console.print(shown(f"No segment of an audited contract holds every word of {words!r}."))
        return
    table = Table(title=f"Segments holding {words!r} (the latest audit of each contract)")
    for column in ("#", "Contract", "Page", "Span (--span)", "Text"):
        table.add_column(column, overflow="fold")
    for number, hit in enumerate(hits, 1):
        text = " ".join(hit.text.split())
        text = text if len(text) <= 400 else text[:399] + "…"
        table.add_row(str(number) + (" (already)" if hit.known else ""), shown(hit.path), str(hit.page),
                      f"{hit.document_id}:{hit.start}-{hit.end}", shown(text))
    Console().print(table)
    console.print(shown(f"Add the ones that are examples: clausemill clauses add {name!r} --search {words!r} "
                        f"--pick 1,3,..." + (f" --limit {limit}" if limit != 30 else "")))


def _readiness(examples: int) -> str:
    from pipelines.clause_types.examples import MIN_EXAMPLES, TRUSTED_EXAMPLES

    if examples < MIN_EXAMPLES:
        return f"needs {MIN_EXAMPLES - examples} more example(s) before it can be trained"
    if examples < TRUSTED_EXAMPLES:
        return f"enough to train; young until {TRUSTED_EXAMPLES} examples"
    return "enough examples to be trusted"


def _quality(metrics: dict) -> str:
    """Cross-validated precision and recall at 0.5 with their 95% intervals, and youth, in words."""
    def figure(name: str) -> str:
        value, (low, high) = metrics.get(name), metrics[f"{name}_interval"]
        return f"{name} not measured" if value is None else f"{name} {value:.2f} ({low:.2f}-{high:.2f})"

    text = f"{figure('precision')}, {figure('recall')}, average precision {metrics['average_precision']:.2f}"
    if metrics.get("young"):
        text += "; young: " + "; ".join(metrics["young_because"])
    return text


def _run_service(work: Callable[[], object]) -> None:
    """A clause-type service call; its refusal is a message and exit 2, not a trace."""
    from pipelines.clause_types.names import ClauseTypeError

    try:
        work()
    except ClauseTypeError as error:
        _fail(str(error).rstrip("."))


def _who() -> str:
    try:
        return f"{getpass.getuser()} (cli)"[:80]
    except (KeyError, OSError):
        return "cli"


def _fail(message: str) -> None:
    console.print(shown(message + "."), style="red")
    raise typer.Exit(2)


def _run(work: Callable[[Session], T], *, write: bool = True) -> T:
    """`work` in one transaction; a clause-type error is a message and exit 2, not a trace."""
    from pipelines.clause_types.names import ClauseTypeError
    from storage.database import session_scope

    try:
        with session_scope(get_settings().effective_database_url, write=write) as session:
            return work(session)
    except ClauseTypeError as error:
        _fail(str(error).rstrip("."))
        raise  # unreachable: _fail exits
