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
from conftest import run_cli, sqlite_url

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
    posted = text.replace("\n", "\r\n")  # as a browser sends a textarea
    assert [q.text for q in read_quotes_file(posted, "the quotes", True)] == [FORCE, FORCE_2 + " still the second quote"]
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


# --- training (the shipped checkpoint, segments of the audited samples as negatives) ----------

FORCE_QUOTES = (
    FORCE, FORCE_2,
    "Force Majeure. If performance is hindered by an act of God, epidemic, embargo or governmental action, the "
    "affected party's obligations are suspended for the duration of that event.",
    "The Supplier shall not be responsible for delays in delivery resulting from natural disasters, riots, labour "
    "disputes or interruptions of public utilities.",
    "Should a force majeure event continue for more than ninety days, either party may terminate this Agreement by "
    "written notice to the other.",
    "The party affected by an event outside its control shall promptly notify the other party and use reasonable "
    "efforts to resume performance.",
)


def test_a_type_trains_into_a_stored_version_that_says_how_good_it_is(audited_env: dict[str, str], tmp_path: Path) -> None:
    from models.addons import addon_tensors, load_addon
    from models.checkpoint_version import checkpoint_version

    name = "Acts Beyond Control"
    quotes = tmp_path / "quotes.txt"
    quotes.write_text("\n\n".join(FORCE_QUOTES[:4]), encoding="utf-8")
    assert run_cli(["clauses", "add", name, "--description", "Excuses a party while events beyond its control stop it.",
                    "--quotes", str(quotes), "--counter", NOT_FORCE], audited_env).returncode == 0
    too_few = run_cli(["clauses", "train", name], audited_env)
    assert too_few.returncode == 2 and "has 4 example(s); training needs at least 5" in " ".join(too_few.stderr.split())
    quotes.write_text("\n\n".join(FORCE_QUOTES), encoding="utf-8")
    assert run_cli(["clauses", "add", name, "--quotes", str(quotes)], audited_env).returncode == 0
    first = run_cli(["clauses", "train", name], audited_env)
    assert first.returncode == 0, first.stderr
    said = " ".join(first.stderr.split())
    assert "Trained Acts Beyond Control v1 (ct-acts-beyond-control-1-" in said and "young: 6 examples" in said
    assert "None" not in said
    second = run_cli(["clauses", "train", name], audited_env)
    assert second.returncode == 0, second.stderr
    with session_scope(sqlite_url(audited_env), write=False) as session:
        clause_type = store.get_type(session, name)
        versions = store.versions_of(session, clause_type)
        weights = store.version_weights(session, versions[0].version)
    # the same examples and the same draw of negatives train the same weights
    assert [v.number for v in versions] == [1, 2]
    assert versions[0].version.rsplit("-", 1)[1] == versions[1].version.rsplit("-", 1)[1]
    metrics = versions[0].metrics
    assert (metrics["examples"], metrics["counter_examples"]) == (6, 1) and metrics["negatives"] >= 300
    assert 0.0 <= metrics["average_precision"] <= 1.0 and metrics["young"]
    addon = load_addon(weights, checkpoint_version())
    assert addon.version == versions[0].version and addon.metrics["examples"] == 6
    assert all(t.numel() for t in addon_tensors(addon).values() if t.dim())  # a column and an expert were stored
    with pytest.raises(ValueError, match="trained for checkpoint"):
        load_addon(weights, "experts-000000000000")
    shown_ = run_cli(["clauses", "show", name], audited_env)
    assert "v2 ct-acts-beyond-control-2-" in shown_.stdout


def test_training_refuses_a_portfolio_with_nothing_audited(embedded_env: dict[str, str], tmp_path: Path) -> None:
    quotes = tmp_path / "quotes.txt"
    quotes.write_text("\n\n".join(FORCE_QUOTES), encoding="utf-8")
    assert run_cli(["clauses", "add", "Acts Beyond Control", "--description", "Events beyond control.",
                    "--quotes", str(quotes)], embedded_env).returncode == 0
    result = run_cli(["clauses", "train", "Acts Beyond Control"], embedded_env)
    assert result.returncode == 2 and "audit a few contracts first" in " ".join(result.stderr.split())


def test_an_addon_reads_back_exactly_as_it_was_saved() -> None:
    import torch

    from models.addons import Addon, addon_tensors, load_addon, save_addon
    from models.experts import ExpertBank
    from models.lexical import LexicalBag

    torch.manual_seed(3)
    bank = ExpertBank(1, 8, 4)
    with torch.no_grad():
        for parameter in bank.parameters():
            parameter.copy_(torch.randn_like(parameter).half().float())
    addon = Addon("Sanctions", "ct-sanctions-1-00000000", "experts-abc", torch.tensor([3, 9, 40]),
                  torch.tensor([0.5, -1.25, 2.0]), -0.75, bank, -2.0, (1.1, -0.2), (0.9, -3.0), {"examples": 7})
    loaded = load_addon(save_addon(addon), "experts-abc")
    assert all(torch.equal(a, b) for a, b in zip(addon_tensors(addon).values(), addon_tensors(loaded).values()))
    bag = LexicalBag(torch.tensor([[3, 40, 0], [5, 9, 70000]]), torch.tensor([[1.0, 2.0, 0.0], [1.0, 1.0, 3.0]]))
    idf = torch.rand(80000) + 0.5
    assert torch.equal(addon.lexical_logits(bag, idf, 1000), loaded.lexical_logits(bag, idf, 1000))
    # a feature past the bigrams is a section heading's word: left out
    assert float(addon.lexical_logits(LexicalBag(torch.tensor([[70000]]), torch.tensor([[1.0]])), idf, 1000)[0]) == -0.75
    with pytest.raises(ValueError, match="not a clause-type add-on"):
        load_addon(b"\x00" * 4, "experts-abc")


# --- a taught type in audits ------------------------------------------------------------------

def _rows(report: Path) -> list[dict[str, str]]:
    import csv

    with (report / "findings.csv").open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_a_trained_type_is_found_in_audits_until_retired(audited_samples: Path, audited_env: dict[str, str],
                                                        sample_dir: Path, tmp_path: Path) -> None:
    from conftest import some_samples

    name = "Acts Beyond Control"
    quotes = tmp_path / "quotes.txt"
    quotes.write_text("\n\n".join(FORCE_QUOTES), encoding="utf-8")
    assert run_cli(["clauses", "add", name, "--description", "Excuses a party while events beyond its control stop it.",
                    "--quotes", str(quotes), "--counter", NOT_FORCE], audited_env).returncode == 0
    assert run_cli(["clauses", "train", name], audited_env).returncode == 0
    assert "active" in run_cli(["clauses"], audited_env).stdout
    folder = some_samples(sample_dir, tmp_path / "in", ("msa-meridian-granite.txt", "license-granite-meridian.pdf"))
    audited = run_cli(["audit", str(folder), "--out", str(tmp_path / "taught"), "--batch-id", "taught"], audited_env)
    assert audited.returncode == 0, audited.stdout + audited.stderr
    rows = _rows(tmp_path / "taught")
    taught = [r for r in rows if r["Category"] == name]
    assert taught and all(r["Version"].startswith("ct-acts-beyond-control-1-") for r in taught)
    best = max(taught, key=lambda r: float(r["Confidence"]))
    assert best["File"] == "msa-meridian-granite.txt" and "Force Majeure" in best["Quote"]
    assert name in (tmp_path / "taught" / "report.html").read_text(encoding="utf-8")
    # the shipped model's own findings are exactly what they were without the taught type
    before = _rows(audited_samples / "report")
    for file in ("msa-meridian-granite.txt", "license-granite-meridian.pdf"):
        model = lambda rs: sorted((r["Category"], r["Start"], r["End"], r["Confidence"]) for r in rs  # noqa: E731
                                  if r["File"] == file and r["Source"] == "model" and r["Category"] != name)
        assert model(rows) == model(before)
    # a reviewer answers its questions, and retraining folds the answers in as examples
    from sqlalchemy import select

    from pipelines.review.queue import decide
    from storage.schema import Document, ReviewItem, utcnow

    with session_scope(sqlite_url(audited_env)) as session:
        items = session.scalars(select(ReviewItem).join(Document, Document.id == ReviewItem.document_id)
                                .where(Document.batch_id == "taught", ReviewItem.category == name)).all()
        assert items
        for item in items:
            decide(session, item.id, "ann", "accept", item.version, utcnow())
    retrained = run_cli(["clauses", "retrain", name], audited_env)
    assert retrained.returncode == 0, retrained.stderr
    said = " ".join(retrained.stderr.split())
    assert f"{len(items)} reviewer decision(s) became examples" in said and "Trained Acts Beyond Control v2" in said
    with session_scope(sqlite_url(audited_env), write=False) as session:
        folded = [e for e in store.examples_of(session, store.get_type(session, name)) if e.source == "decision"]
    assert folded and all("Force Majeure" in e.text and e.label for e in folded)
    # retired: the next audit leaves it out, and the earlier batch's reports keep it
    assert run_cli(["clauses", "retire", name], audited_env).returncode == 0
    again = run_cli(["audit", str(folder), "--out", str(tmp_path / "after"), "--batch-id", "after"], audited_env)
    assert again.returncode == 0, again.stderr
    assert not [r for r in _rows(tmp_path / "after") if r["Category"] == name]
    assert run_cli(["report", "taught", "--out", str(tmp_path / "rewritten")], audited_env).returncode == 0
    assert {r["Quote"] for r in _rows(tmp_path / "rewritten") if r["Category"] == name} == {r["Quote"] for r in taught}


def test_the_types_a_batch_runs_with_are_part_of_its_fingerprint() -> None:
    from pipelines.nightly.incremental import NO_MODEL, model_version
    from pipelines.settings import Settings

    settings = Settings()
    shipped = model_version(settings)
    assert model_version(settings, {}) == shipped == model_version(settings, {"playbook": "x"})
    one = model_version(settings, {"clause_types": {"Sanctions": {"version": "ct-sanctions-1-aaaaaaaa"}}})
    retrained = model_version(settings, {"clause_types": {"Sanctions": {"version": "ct-sanctions-2-bbbbbbbb"}}})
    assert one.startswith(shipped + "+types-") and len({shipped, one, retrained}) == 3
    off = Settings(model_enabled=False)
    assert model_version(off, {"clause_types": {"Sanctions": {"version": "ct-sanctions-1-aaaaaaaa"}}}) == NO_MODEL


# --- the playbook ------------------------------------------------------------------------------

PLAYBOOK = """
name: team
version: "1"
required:
  force majeure: {severity: high, reason: "A force majeure clause is required."}
  Governing Law: {severity: medium}
severities:
  Force Majeure: medium
"""


def test_a_playbook_takes_positions_on_taught_types_only_where_a_batch_runs_them() -> None:
    from pipelines.playbook import PlaybookError, parse_playbook
    from pipelines.steps import playbook_for

    with pytest.raises(PlaybookError, match="'force majeure' is not a CUAD category"):
        parse_playbook(PLAYBOOK, "team.yaml")  # no such type defined
    playbook = parse_playbook(PLAYBOOK, "team.yaml", taught=frozenset({"Force Majeure"}))
    assert [r.category for r in playbook.required] == ["Force Majeure", "Governing Law"]
    defined = {"playbook": PLAYBOOK, "clause_types_defined": ["Force Majeure"]}
    runs = playbook_for({**defined, "clause_types": {"Force Majeure": {"version": "ct-force-majeure-1-aaaaaaaa"}}})
    assert [r.category for r in runs.required] == ["Force Majeure", "Governing Law"]
    assert runs.severity("Force Majeure") == "medium" and runs.stakes("Force Majeure") == "high"
    # retired, or not trained for this checkpoint: never called missing, nor weighed
    idle = playbook_for(defined)
    assert [r.category for r in idle.required] == ["Governing Law"] and idle.severity("Force Majeure") == "info"


def test_a_batch_pins_each_trained_type_and_names_every_defined_one(database_url: str) -> None:
    with session_scope(database_url) as session:
        assert store.pinned_options(session, {"view": "full"}, "experts-aaa") == {"view": "full"}  # nothing defined
        defined, _ = store.define_type(session, "Force Majeure", "Excuses performance.", "ann")
        store.define_type(session, "Sanctions", "Sanctions compliance.", "ann")
        for number, base in ((1, "experts-old"), (2, "experts-aaa")):
            store.add_version(session, defined, number, f"ct-force-majeure-{number}-0000000{number}", base, b"weights",
                              {"examples": 5, "counter_examples": 0, "negatives": 300}, "ann")
        options = store.pinned_options(session, {"view": "full", "clause_types": {"stale": {}}}, "experts-aaa")
        assert options == {"view": "full", "clause_types_defined": ["Force Majeure", "Sanctions"],
                           "clause_types": {"Force Majeure": {"version": "ct-force-majeure-2-00000002", "young": False}}}
        # another checkpoint, or the model off: the names, no pins
        assert "clause_types" not in store.pinned_options(session, {}, "experts-bbb")
        assert store.pinned_options(session, {}, None) == {"clause_types_defined": ["Force Majeure", "Sanctions"]}
        assert store.list_types(session)[0].status == "active"
        store.set_retired(session, defined, True)
        assert "clause_types" not in store.pinned_options(session, {}, "experts-aaa")
        store.set_retired(session, defined, False)
        assert store.list_types(session)[0].status == "active"


def test_a_reviewer_may_say_a_span_is_a_taught_type_but_not_a_retired_one(audited_env: dict[str, str]) -> None:
    from sqlalchemy import select

    from pipelines.review.item_view import load_item
    from storage.schema import ReviewItem, utcnow
    from web.deciding import Fields, correction

    url = sqlite_url(audited_env)
    with session_scope(url) as session:
        store.define_type(session, "Acts Beyond Control", "Excuses a party while events beyond its control stop it.", "ann")
        old, _ = store.define_type(session, "Old Type", "No longer used.", "ann")
        store.set_retired(session, old, True)
        assert store.description_of(session, "acts beyond control").startswith("Excuses a party")
    with session_scope(url, write=False) as session:
        item_id = session.scalar(select(ReviewItem.id).where(ReviewItem.category == "Non-Compete").limit(1)) \
            or session.scalar(select(ReviewItem.id).where(ReviewItem.category.not_in(("Parties",))).limit(1))
        view = load_item(session, item_id, None, utcnow())
        assert view.description  # a CUAD category's own
        assert correction(session, view, Fields(category="Acts Beyond Control")) == {"category": "Acts Beyond Control"}
        with pytest.raises(ValueError, match="'Old Type' is not a category clausemill knows"):
            correction(session, view, Fields(category="Old Type"))


def test_reviewers_decisions_teach_their_type() -> None:
    from pipelines.clause_types.examples import decision_quotes

    def decided(category: str, action: str, new: dict | None = None, reason: str | None = None, text: str = FORCE,
                question: str = "presence") -> list[dict]:
        evidence = {"text": text, "start": 10, "end": 10 + len(text), "priority_parts": {"question": question}}
        return [{"action": action, "reason": reason, "new": new or {}, "document_id": 7,
                 "previous": {"category": category, "evidence": evidence}}]

    name = "Acts Beyond Control"
    trails = [
        decided(name, "accept"),
        decided(name, "reject", reason="not_a_clause", text=NOT_FORCE),
        decided(name, "reject", reason="wrong_span", text=FORCE_2),  # the clause is there, elsewhere: nothing
        decided(name, "correct", {"category": "Termination For Convenience"}, text=NOT_FORCE + " Really."),
        decided(name, "correct", {"start": 0, "end": 90, "text": FORCE_2}),  # a better span: an example
        decided("Non-Compete", "correct", {"category": name}, text=FORCE + " Also."),  # another's span, it is ours
        decided("Non-Compete", "accept"),  # another type's decision: nothing
        decided(name, "accept", question="value"),  # not a presence question: nothing
        decided(name, "accept") + [{"action": "undo", "reason": None, "new": {}, "document_id": 7, "previous": {}}],
    ]
    quotes = decision_quotes(name, trails, {7: "/contracts/a.pdf"})
    assert [(q.label, q.text) for q in quotes] == [
        (True, FORCE), (False, NOT_FORCE), (False, NOT_FORCE + " Really."), (True, FORCE_2), (True, FORCE + " Also.")]
    assert {(q.source, q.path, q.document_id) for q in quotes} == {("decision", "/contracts/a.pdf", 7)}


def test_a_young_type_asks_its_most_telling_candidate_on_top_of_the_cap() -> None:
    from pipelines.aggregate import aggregate_document
    from pipelines.datamodel import Finding
    from pipelines.playbook import load_playbook
    from pipelines.review.budget import Budget

    name, version = "Acts Beyond Control", "ct-acts-beyond-control-1-aaaaaaaa"
    findings = [Finding(name, f"{text} {i}", 1000 * i, 1000 * i + 400, 1, p, "model", version)
                for i, (text, p) in enumerate(((FORCE, 0.93), (FORCE_2, 0.41), (NOT_FORCE, 0.08)), 1)]
    asked = aggregate_document(findings, load_playbook(None), 1, Budget(per_contract=0, learning=((name, version),)))
    learning = [item for item in asked.review if item.parts.get("learning") == version]
    assert len(learning) == 1 and learning[0].finding.confidence == 0.41  # nearest an even chance
    assert learning[0].reason.startswith(f"Teaching {name}")
    not_young = aggregate_document(findings, load_playbook(None), 1, Budget(per_contract=0))
    assert not [item for item in not_young.review if item.parts.get("learning")]


def test_only_young_types_with_room_in_their_budget_ask(database_url: str) -> None:
    from pathlib import Path as P

    from pipelines.review.budget import LEARNING_OPEN
    from pipelines.steps import learning_types
    from storage import repository, schema

    options = {"clause_types": {"Acts": {"version": "ct-acts-1-aaaaaaaa", "young": True},
                                "Trusted": {"version": "ct-trusted-3-bbbbbbbb", "young": False}}}
    with session_scope(database_url) as session:
        assert learning_types(session, options) == (("Acts", "ct-acts-1-aaaaaaaa"),)
        ids = repository.create_batch(session, "b", [P(f"/c/{i}.txt") for i in range(LEARNING_OPEN)], {})
        for document_id in ids:
            session.add(schema.ReviewItem(document_id=document_id, category="Acts", reason="Teaching", priority=0.5,
                                          evidence={"priority_parts": {"learning": "ct-acts-1-aaaaaaaa"}}))
    with session_scope(database_url, write=False) as session:
        assert store.learning_counts(session, "Acts", "ct-acts-1-aaaaaaaa") == (LEARNING_OPEN, 0)
        assert learning_types(session, options) == ()  # its open questions are at their limit


def test_reviewers_recalibrate_a_taught_type_per_version() -> None:
    from pipelines.datamodel import Finding
    from pipelines.review.recalibration import Calibration, calibration_key, review_labels

    v1, v2 = "ct-acts-1-aaaaaaaa", "ct-acts-2-bbbbbbbb"
    calibration = Calibration(3, {f"Acts @ {v1}": (1.0, -2.0), "Non-Compete": (1.0, 1.0)})
    old = Finding("Acts", FORCE, 0, 10, 1, 0.6, "model", v1)
    new = Finding("Acts", FORCE, 0, 10, 1, 0.6, "model", v2)
    assert calibration.recalibrated(old).confidence < 0.6 and calibration.recalibrated(new).confidence == 0.6
    assert calibration.recalibrated(Finding("Non-Compete", FORCE, 0, 10, 1, 0.6, "model", "experts-x")).confidence > 0.6
    assert calibration_key("Acts", "presence", v2) == f"Acts @ {v2}" and calibration_key("Acts", "presence") == "Acts"
    trail = [{"action": "accept", "reason": None, "new": {}, "document_id": 1,
              "previous": {"category": "Acts", "evidence": {"confidence": 0.6, "version": v2,
                                                            "priority_parts": {"question": "presence"}}}}]
    assert [label.category for label in review_labels([trail])] == [f"Acts @ {v2}"]


# --- the taught columns beside the shipped model's --------------------------------------------

def _random_addon(name: str, hidden: int, seed: int, gate: float) -> "Addon":  # noqa: F821
    import torch

    from models.addons import Addon
    from models.experts import ExpertBank

    generator = torch.Generator().manual_seed(seed)
    bank = ExpertBank(1, hidden, 8)
    with torch.no_grad():
        for parameter in bank.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.05)
    index = torch.arange(1, 30000, 7)
    return Addon(name, f"ct-{name.lower()}-1-0000000{seed}", "experts-x", index,
                 torch.randn(len(index), generator=generator), -1.0, bank.eval(), gate, (1.0, 0.0), (1.0, -1.0))


def test_taught_columns_leave_the_shipped_model_untouched_and_join_from_parts() -> None:
    import torch

    from models.checkpoint import DEFAULT_CHECKPOINT, load_checkpoint
    from models.headings import section_headings
    from models.inference import ClauseModel
    from pipelines.datamodel import PageText
    from pipelines.samples import generate_contract
    from pipelines.stages.segment import segment_document

    model = ClauseModel(load_checkpoint(DEFAULT_CHECKPOINT), torch.device("cpu"), int8=True)  # as a CPU worker runs
    segments = segment_document([PageText(number=1, text=generate_contract(11).text, source="plain")])
    end, categories = segments[-1].end, len(model.config.categories)
    first, second = _random_addon("Alpha", model.backbone.hidden, 1, 0.0), _random_addon("Beta", model.backbone.hidden, 2, -0.5)
    plain = model.chunk_probabilities([segments], [end], [""])[0]
    taught = model.chunk_probabilities([segments], [end], [""], addons=[[first, second]])[0]
    assert torch.equal(taught[:, :categories], plain) and taught.shape[1] == categories + 2
    assert model.counts["taught_only"] > 0  # some gated segments were not the shipped model's to encode
    # in parts, as the gpu worker scores a long document: the same columns (fp32, whose states do not
    # depend on the batch; int8 quantizes each batch's activations together)
    fp32 = ClauseModel(load_checkpoint(DEFAULT_CHECKPOINT), torch.device("cpu"), int8=False)
    whole = fp32.chunk_probabilities([segments], [end], [""], addons=[[first, second]])[0]
    half = len(segments) // 2
    parts = fp32.chunk_probabilities([segments[:half], segments[half:]], [end] * 2,
                                     ["", section_headings(segments[:half])[-1]], addons=[[first, second]] * 2)
    assert torch.allclose(torch.cat(parts)[:, categories:], whole[:, categories:], atol=1e-5)
    findings = model.document_findings(segments, taught, [first, second])
    shipped = model.document_findings(segments, plain)
    assert findings[:len(shipped)] == shipped
    assert {f.category for f in findings[len(shipped):]} == {"Alpha", "Beta"}
    assert {f.version for f in findings if f.category == "Beta"} == {second.version}


# --- the shipped types ----------------------------------------------------------------------------

def test_every_shipped_example_is_read_from_a_training_contract(cuad_dir: Path) -> None:
    import csv

    from pipelines.clause_types.names import check_name
    from pipelines.clause_types.shipped import shipped_types

    types = shipped_types()
    assert len(types) >= 4
    validation = {Path(line.strip()).stem.casefold()
                  for line in (Path(__file__).parents[1] / "docs" / "validation_split.txt").read_text().splitlines()
                  if line.strip()}
    with (cuad_dir / "files.csv").open(encoding="utf-8") as handle:  # a contract is known by any of its names
        held_out = {row["txt"] for row in csv.DictReader(handle)
                    if {Path(row[k]).stem.casefold() for k in ("master_clauses_filename", "pdf", "txt")} & validation}
    assert len(held_out) == len(validation)
    for shipped in types:
        check_name(shipped.name, [])
        refs = [*shipped.examples, *shipped.counter_examples]
        assert len(shipped.examples) >= 30 and len(shipped.counter_examples) >= 10, shipped.name
        assert not {r.file for r in refs} & held_out, f"{shipped.name} reads a validation contract"
        assert not {(r.file, r.start) for r in shipped.examples} & {(r.file, r.start) for r in shipped.counter_examples}
        for ref in refs:
            text = ref.read(cuad_dir)  # raises when the words are not the ones checked by hand
            assert text is not None and 100 <= len(text) <= 1600, (shipped.name, ref)


def test_the_shipped_types_install_once_trained_and_ready(embedded_env: dict[str, str], cuad_dir: Path,
                                                         tmp_path: Path) -> None:
    from pipelines.clause_types.shipped import shipped_types

    without = run_cli(["clauses", "shipped", "--cuad", str(tmp_path / "no-cuad")], embedded_env)
    assert without.returncode == 0, without.stderr
    said = " ".join(without.stderr.split())
    for shipped in shipped_types():
        assert f"{shipped.name}: installed; 0 example(s) added" in said and "version ct-" in said
    assert "CUAD is not at" in said
    again = run_cli(["clauses", "shipped", "--cuad", str(cuad_dir)], embedded_env)  # the words, now
    assert again.returncode == 0 and "already there" in again.stderr
    with session_scope(sqlite_url(embedded_env), write=False) as session:
        lines = {line.name: line for line in store.list_types(session)}
        for shipped in shipped_types():
            line = lines[shipped.name]
            assert (line.status, line.trained) == ("active", 1)
            assert (line.examples, line.counter_examples) == (len(shipped.examples), len(shipped.counter_examples))
    third = run_cli(["clauses", "shipped", "--cuad", str(cuad_dir)], embedded_env)
    assert " 0 example(s) added" in " ".join(third.stderr.split()) and "version ct-" not in third.stderr
