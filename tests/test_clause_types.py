"""Clause types taught from examples (issue 44): names, example quotes, their rows, and
`clausemill clauses` on a real audited database."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipelines.clause_types.examples import Quote, clean_quote, parse_picks, parse_span, read_quotes_file
from pipelines.clause_types.names import ClauseTypeError, check_name, slug_of
from storage import clause_types as store
from storage.database import session_scope
from tests.conftest import run_cli, sqlite_url

FORCE = "Neither party shall be liable for any failure or delay caused by events beyond its reasonable control."
FORCE_2 = "A party prevented from performing by fire, flood, war or strike is excused while the event lasts."
NOT_FORCE = "Either party may terminate this Agreement for convenience on thirty days' written notice."


# --- names --------------------------------------------------------------------------------

@pytest.mark.parametrize("name, problem", [
    ("  ", "needs a name"),
    ("x" * 57, "at most 56"),
    ("non-compete", "one of CUAD's categories"),  # CUAD's own, case aside
    ("contract type", "one of CUAD's categories or key terms"),  # a key term clausemill reads
    ("Force Majeure (value)", "may not contain"),  # would read as a key term's value in recalibration
    ("Indemnity @ 2", "may not contain"),
    ("1234", "is not a name"),
    ("force   MAJEURE", "already exists"),
])
def test_a_name_that_could_be_mistaken_is_refused(name: str, problem: str) -> None:
    with pytest.raises(ClauseTypeError, match=problem):
        check_name(name, ["Force Majeure"])


def test_names_are_stored_with_their_spaces_collapsed_and_slugs_are_unique() -> None:
    assert check_name("  Sanctions   Compliance ", []) == "Sanctions Compliance"
    assert slug_of("Force Majeure", set()) == "force-majeure"
    assert slug_of("Force  majeure!", {"force-majeure"}) == "force-majeure-2"
    assert slug_of("Ü" * 3, set()) == "type"  # no ASCII letters: still a slug


# --- quotes --------------------------------------------------------------------------------

def test_quotes_are_read_from_blank_line_separated_text_and_from_json_lines() -> None:
    text = f"{FORCE}\n\n  \n{FORCE_2}\nstill the second quote\n"
    assert [q.text for q in read_quotes_file(text, "q.txt", True)] == [FORCE, FORCE_2 + " still the second quote"]
    lines = "\n".join(json.dumps(r) for r in ({"text": FORCE}, {"text": FORCE_2, "path": "a.pdf", "start": 4, "end": 99}))
    quotes = read_quotes_file(lines + "\n", "q.jsonl", False)
    assert quotes[1] == Quote(FORCE_2, False, "file", "a.pdf", 4, 99)
    assert not quotes[0].label


@pytest.mark.parametrize("content, problem", [
    ('{"text": "%s"}\n{"quote": "x"}' % FORCE, r"q.jsonl, line 2: each line needs a \"text\""),
    ('{"text": "%s", "page": 3}' % FORCE, "line 1: unknown keys page"),
    ('{"text": "%s", "start": 3}' % FORCE, "go together"),
    ('{"text": "%s"\n' % FORCE, "line 1: not a JSON object"),
    ('{"text": "too short"}', "line 1 is too short"),
])
def test_a_bad_quotes_file_says_which_line(content: str, problem: str) -> None:
    with pytest.raises(ClauseTypeError, match=problem):
        read_quotes_file(content, "q.jsonl", True)


def test_spans_and_picks_are_read_as_written_and_refused_otherwise() -> None:
    assert parse_span(" 12:1040-1502") == (12, 1040, 1502)
    assert parse_picks("1, 4-6,4", 6) == [1, 4, 5, 6]
    for bad in ("12:50-10", "12-50", "doc:1-2"):
        with pytest.raises(ClauseTypeError):
            parse_span(bad)
    with pytest.raises(ClauseTypeError, match="numbered 1 to 3"):
        parse_picks("2,4", 3)
    with pytest.raises(ClauseTypeError, match="too short"):
        clean_quote("force majeure")
    assert clean_quote(f"  {FORCE}\n") == FORCE


# --- the rows, on SQLite and PostgreSQL ----------------------------------------------------

def test_a_type_keeps_each_quote_once_and_never_both_ways(database_url: str) -> None:
    with session_scope(database_url) as session:
        with pytest.raises(ClauseTypeError, match="needs a description"):
            store.define_type(session, "Force Majeure", None, "ann")
        clause_type, created = store.define_type(session, "Force Majeure", "Excuses performance.", "ann")
        assert created
        first = store.add_examples(session, clause_type, [Quote(FORCE), Quote(FORCE.upper()), Quote(NOT_FORCE, False)], "ann")
        assert (first.added, first.already) == (2, 1)  # the same words in capitals are the same example
        with pytest.raises(ClauseTypeError, match="already an example of Force Majeure"):
            store.add_examples(session, clause_type, [Quote(FORCE, False)], "ann")
    with session_scope(database_url) as session:
        clause_type = store.get_type(session, "force majeure")
        examples = store.examples_of(session, clause_type)
        assert [(e.label, e.text) for e in examples] == [(True, FORCE), (False, NOT_FORCE)]
        assert store.withdraw_examples(session, clause_type, [examples[0].id]) == 1
        with pytest.raises(ClauseTypeError, match="no example numbered 999"):
            store.withdraw_examples(session, clause_type, [999])
    with session_scope(database_url) as session:
        clause_type = store.get_type(session, "Force Majeure")
        assert [line.examples for line in store.list_types(session)] == [0]
        # a withdrawn quote given again comes back, now as a counter-example if so given
        assert store.add_examples(session, clause_type, [Quote(FORCE, False)], "bob").added == 1
        assert len(store.examples_of(session, clause_type, withdrawn=True)) == 2
        store.set_retired(session, clause_type, True)
        _, created = store.define_type(session, "FORCE MAJEURE", None, "bob")  # retired, the name is still taken
        assert not created
        line = store.list_types(session)[0]
        assert (line.status, line.examples, line.counter_examples) == ("retired", 0, 2)


def test_the_clause_type_migration_goes_down_and_up_again(database_url: str) -> None:
    from alembic import command

    from storage.migrate import alembic_config

    config = alembic_config(database_url)
    command.downgrade(config, "0013")
    command.upgrade(config, "head")
    with session_scope(database_url) as session:
        assert store.list_types(session) == []


# --- the CLI on an audited database -----------------------------------------------------------

def test_an_admin_teaches_a_type_from_quotes_a_file_a_span_and_a_search(audited_env: dict[str, str], tmp_path: Path) -> None:
    name = "Acts Beyond Control"
    result = run_cli(["clauses", "add", name, "--quote", FORCE], audited_env)
    assert result.returncode == 2 and "needs a description" in result.stderr
    listed = run_cli(["clauses", "add", name, "--search", "force majeure"], audited_env)
    assert listed.returncode == 0, listed.stderr
    assert "Segments holding 'force majeure'" in listed.stdout and "--pick" in listed.stderr
    quotes = tmp_path / "quotes.txt"
    quotes.write_text(f"{FORCE}\n\n{FORCE_2}\n", encoding="utf-8")
    added = run_cli(["clauses", "add", name, "--description", "Excuses a party when events beyond its control stop it.",
                     "--quotes", str(quotes), "--counter", NOT_FORCE, "--search", "force majeure", "--pick", "1-2"],
                    audited_env)
    assert added.returncode == 0, added.stderr
    assert "Defined Acts Beyond Control: 5 added" in " ".join(added.stderr.split())
    with session_scope(sqlite_url(audited_env), write=False) as session:
        picked = [e for e in store.examples_of(session, store.get_type(session, name)) if e.source == "search"]
        assert len(picked) == 2 and all("force majeure" in e.text.lower() and e.path for e in picked)
        hit = store.search_segments(session, "force majeure", 1)[0]
    # the same words cut from the contract by their offsets are the same example: nothing new
    again = run_cli(["clauses", "add", name, "--span", f"{hit.document_id}:{hit.start}-{hit.end}"], audited_env)
    assert again.returncode == 0 and "0 added, 1 already there" in " ".join(again.stderr.split())
    past_end = run_cli(["clauses", "add", name, "--span", f"{hit.document_id}:0-99999999"], audited_env)
    assert past_end.returncode == 2 and "runs past its end" in past_end.stderr
    relisted = run_cli(["clauses", "add", name, "--search", "force majeure", "--limit", "2"], audited_env)
    assert relisted.stdout.count("(already)") == 2
    shown = run_cli(["clauses", "show", name.lower()], audited_env)
    assert shown.returncode == 0 and "4 example(s), 1 counter-example(s)" in shown.stdout
    assert "young until 25" not in shown.stdout and "needs 1 more example" in shown.stdout
    assert run_cli(["clauses", "retire", name], audited_env).returncode == 0
    assert "retired" in run_cli(["clauses"], audited_env).stdout
