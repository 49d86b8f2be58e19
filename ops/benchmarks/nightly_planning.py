"""How long does nightly planning take for a repository of 100,000 contracts (issue 43, item 4)?

Planning is what `clausemill nightly` does before any worker starts: list the files, register
the night's batch, and decide per file whether it changed since its last audit (size and
mtime first; only a file whose size or mtime moved is read and hashed), carrying the results
of the unchanged ones over (`pipelines.nightly.runs.start_run`, which calls
`pipelines.nightly.incremental.plan_batch`).  This script times that, the real code, on SQLite
(the embedded default) and on PostgreSQL (127.0.0.1:5432, a database of its own, dropped at the
end), and prints a table.

What it builds, in a temporary folder:

1. N small text contracts (default 100,000), 1,000 to a subfolder: each is one of T short
   contracts written by the project's sample generator (`pipelines.samples.generate_contract`,
   seeds 1..T), followed by a line with its own register reference, so every file has distinct
   bytes (about 7 KB each).
2. The first night: the real `start_run` over the folder (nothing known: every file hashed,
   every one to be audited).
3. Marking them audited.  Auditing 100,000 documents for real would take over six hours here
   (about 260 of these short contracts a minute with the model, on this machine's two cores:
   control_plane.py), so only the T template files are audited for real, in this process,
   through the DAG's own steps (`pipelines.steps`: ingest, extract, segment, the rule pack, the
   model when it is enabled, aggregation, persist).  Every other document of the first night
   gets, through the repository's own writes, what its audit would have stored, taken from the
   audit of its template (the same text but for the reference line): its file facts with the
   file's own sha256 (`repository.record_facts`, hashed by ingest's `sha256_of`), the template's
   findings of every producer (`replace_findings`), review items (`replace_review_items`) and
   assessment (`store_assessment`), then `mark_done`; the batch then ends
   (`finalize_batch_if_complete`).  Pages and segments are not written: the planner never reads
   them, and a carried document gets none.
   With the model, an audit stores about 1,450 findings rows and a 0.7 MB assessment per
   contract (the model's ranked tail), and every night carries a copy of them into the new batch:
   at 100,000 files that is over 60 GB a night, more than this machine's free disk holds over a
   few nights, and hours of writing.  So `--results none` gives the documents not audited for real their file facts
   only (marked done, no findings, review items or assessment): that measures the planner's own
   cost per file at 100,000, and a run with results at a smaller N measures the cost of carrying
   them, per document.
4. More nights, each the real `start_run` in a fresh process (so its peak memory is its own):
   (a) nothing changed; (b) 1% of the files touched (mtime moved, bytes the same); (c) 1% of the
   files edited (their reference line amended: size, bytes and mtime change).  `--profile` adds
   one more night with nothing else changed, run under cProfile, and prints where its time went.
   On PostgreSQL each night (and the marking) starts after a VACUUM ANALYZE, as autovacuum would
   have run by then: this server runs with autovacuum off.

Each night's row: wall time of `start_run`, split into listing the files (`collect_inputs`),
registering the batch (`create_batch`) and `plan_batch` (stat, hash, fingerprint, carry over);
files hashed; documents to re-audit and carried; SQL statements sent and the time spent in
them (SQLAlchemy's cursor events); the process's peak resident memory during the night and
its resident memory before it; and at the end the database's size.

    python ops/benchmarks/nightly_planning.py --files 1000 --profile             # with results, both databases
    python ops/benchmarks/nightly_planning.py --results none --database sqlite   # 100,000 files, planner only
    # a PostgreSQL run at 100,000 takes over 10 minutes here: in two parts, the files and database kept between
    python ops/benchmarks/nightly_planning.py --results none --database postgresql --keep DIR --stage build
    python ops/benchmarks/nightly_planning.py --results none --database postgresql --keep DIR --stage nights
"""
from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
PER_FOLDER = 1_000
CHUNK = 1_000
"""Documents marked audited per transaction."""
NIGHTS = {
    "first": "first night (nothing known: every file hashed)",
    "a": "(a) nothing changed",
    "b": "(b) 1% touched (mtime only)",
    "c": "(c) 1% edited (touch + edit)",
    "p": "one more night, nothing else changed, under cProfile (slower)",
}


# --- the contracts -------------------------------------------------------------------------

def file_path(folder: Path, index: int) -> Path:
    return folder / f"{index // PER_FOLDER:03d}" / f"contract-{index:06d}.txt"


def reference_line(index: int, amended: str = "") -> str:
    return f"\n\nContract register reference: CM-{index:06d}{amended}\n"


def template_texts(templates: int) -> list[str]:
    """The sample generator's short contracts, seeds 1..templates."""
    from pipelines.samples import generate_contract

    return [generate_contract(seed, short=True).text for seed in range(1, templates + 1)]


def write_contracts(folder: Path, files: int, texts: list[str]) -> int:
    """File i is template i mod T plus its own reference line; returns the bytes written."""
    written = 0
    for index in range(files):
        path = file_path(folder, index)
        if index % PER_FOLDER == 0:
            path.parent.mkdir(parents=True, exist_ok=True)
        data = (texts[index % len(texts)] + reference_line(index)).encode()
        path.write_bytes(data)
        written += len(data)
    return written


def touch(folder: Path, chosen: list[int]) -> None:
    """The mtime moves a second on; the bytes stay."""
    for index in chosen:
        path = file_path(folder, index)
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def edit(folder: Path, chosen: list[int], texts: list[str]) -> None:
    """The reference line is amended: new bytes, a new size, a new mtime."""
    for index in chosen:
        file_path(folder, index).write_text(texts[index % len(texts)] + reference_line(index, " (amended)"),
                                            encoding="utf-8")


# --- what runs in a child process ----------------------------------------------------------

def settings_for(database_url: str, data_dir: Path, model: bool):  # type: ignore[no-untyped-def]
    from pipelines.settings import Settings

    return Settings(data_dir=data_dir, database_url=database_url, model_enabled=model)


def rss_mb(field: str) -> float:
    """VmRSS (now) or VmHWM (the peak since the last reset) of this process, in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


class StatementCounter:
    """SQL statements sent by every engine of this process, and the time spent in them."""

    def __init__(self) -> None:
        from sqlalchemy import event
        from sqlalchemy.engine import Engine

        self.count, self.seconds, self._started = 0, 0.0, 0.0
        event.listen(Engine, "before_cursor_execute", self._before)
        event.listen(Engine, "after_cursor_execute", self._after)

    def _before(self, *_: Any) -> None:
        self._started = time.perf_counter()

    def _after(self, *_: Any) -> None:
        self.count += 1
        self.seconds += time.perf_counter() - self._started


def _timed(module: Any, name: str, spent: dict[str, float]) -> None:
    """Wrap module.name so its time adds up in spent[name] (the real function runs)."""
    real: Callable = getattr(module, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            spent[name] = spent.get(name, 0.0) + time.perf_counter() - started

    setattr(module, name, wrapper)


def night(args: argparse.Namespace) -> dict:
    """One night's planning: the real start_run over the folder, timed in its parts."""
    from datetime import UTC, datetime

    import pipelines.inputs
    import pipelines.nightly.runs as runs
    from pipelines import logs
    from storage import repository
    from workers.celery_app import create_app

    logs.configure("WARNING")
    settings = settings_for(args.database_url, Path(args.data_dir), args.model)
    spent: dict[str, float] = {}
    _timed(pipelines.inputs, "collect_inputs", spent)
    _timed(repository, "create_batch", spent)
    _timed(runs, "plan_batch", spent)
    app = create_app(settings)
    job = runs.NightlyJob((Path(args.folder),))
    runs.audit_versions(settings, job.options)  # imports and compiles the rule pack before the clock starts
    counter = StatementCounter()
    before = rss_mb("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # VmHWM from here on
    profiler = cProfile.Profile() if args.profile else None
    started = time.perf_counter()
    if profiler:
        profiler.enable()
    result = runs.start_run(app, settings, job, window_start=datetime.now(UTC), trigger="manual",
                            out=Path(args.data_dir) / "nightly-out")
    if profiler:
        profiler.disable()
    wall = time.perf_counter() - started
    peak = rss_mb("VmHWM")
    plan = result.plan
    assert plan is not None and result.batch_id is not None, f"the run did not start: {result.reason}"
    if not plan.to_send:
        runs.send_planned(app, settings, result)  # nothing to audit: the batch ends now, as the real run's does
    out = {"batch_id": result.batch_id, "wall": wall, "documents": plan.documents, "hashed": plan.read,
           "to_send": len(plan.to_send), "carried": len(plan.carried), "duplicates": len(plan.duplicates),
           "statements": counter.count, "sql_seconds": counter.seconds, "rss_before": before, "peak": peak, **spent}
    if profiler:
        text = io.StringIO()
        stats = pstats.Stats(profiler, stream=text).strip_dirs()
        stats.sort_stats("tottime").print_stats(18)
        stats.sort_stats("cumulative").print_stats(30)
        out["profile"] = text.getvalue()
    return out


def mark_audited(args: argparse.Namespace) -> dict:
    """What the first night's audit would have stored: the T templates audited for real through
    the DAG's steps, every other document given its template's results through the repository."""
    from sqlalchemy import select

    from pipelines import logs, steps
    from pipelines.dag import Stage
    from pipelines.datamodel import FileFacts
    from pipelines.stages.ingest import sha256_of
    from storage import repository, schema
    from storage.database import session_scope
    from workers.model_batcher import GpuModel

    logs.configure("WARNING")
    settings = settings_for(args.database_url, Path(args.data_dir), args.model)
    url = settings.effective_database_url
    folder, templates = Path(args.folder), args.templates
    with session_scope(url, write=False) as session:
        ids = dict(session.execute(select(schema.Document.path, schema.Document.id)
                                   .where(schema.Document.batch_id == args.batch_id)).all())
    document_of = {index: ids[str(file_path(folder, index))] for index in range(args.files)}

    started = time.perf_counter()
    model = GpuModel(settings)
    for index in range(templates):
        doc = steps.begin(settings, document_of[index])
        assert doc is not None
        assert steps.ingest(settings, doc)
        doc = steps.begin(settings, doc.id)  # with the kind ingest found
        assert doc is not None and not steps.extract(settings, doc), "a text file needs no OCR"
        steps.segment(settings, doc)
        steps.analyse(settings, doc, Stage.ANALYSE_RULES, steps.rules_analyser)
        if args.model:
            steps.analyse(settings, doc, Stage.ANALYSE_MODEL, lambda _text, segments: model.predict(segments))
        steps.aggregate(settings, doc)
        steps.persist(settings, doc)
    audited_s = time.perf_counter() - started

    producers = [*settings.analysers, "aggregate"] if args.results == "audited" else []
    results = []
    with session_scope(url, write=False) as session:
        for index in range(templates):
            template = repository.get_document(session, document_of[index])
            items = [{"category": i.category, "reason": i.reason, "priority": i.priority, "evidence": i.evidence}
                     for i in session.scalars(select(schema.ReviewItem).where(schema.ReviewItem.document_id == template.id))]
            if args.results == "none":
                items = []
            results.append({
                "kind": template.kind, "pages": template.page_count, "risk": (template.risk_score, template.risk_level),
                "assessment": template.assessment if args.results == "audited" else None, "items": items,
                "findings": {p: repository.load_findings(session, template.id, [p]) for p in producers}})

    started = time.perf_counter()
    rest = list(range(templates, args.files))
    for start in range(0, len(rest), CHUNK):
        with session_scope(url) as session:
            for index in rest[start:start + CHUNK]:
                path, made, document_id = file_path(folder, index), results[index % templates], document_of[index]
                original = repository.record_facts(session, document_id, FileFacts(
                    sha256_of(path), path.stat().st_size, made["kind"], made["pages"]))
                assert original is None, "every file has distinct bytes"
                if made["assessment"] is not None:
                    for producer, findings in made["findings"].items():
                        repository.replace_findings(session, document_id, producer, findings)
                    repository.replace_review_items(session, document_id, made["items"])
                    repository.store_assessment(session, document_id, made["assessment"], *made["risk"])
                repository.mark_done(session, document_id)
    with session_scope(url) as session:
        assert repository.finalize_batch_if_complete(session, args.batch_id), "every document of the first night ended"
    return {"audited_s": audited_s, "copied_s": time.perf_counter() - started,
            "findings_per_document": {p: sum(len(r["findings"][p]) for r in results) / templates for p in producers},
            "items_per_document": sum(len(r["items"]) for r in results) / templates,
            "assessment_bytes": sum(len(json.dumps(r["assessment"])) for r in results if r["assessment"]) / templates}


def child(mode: str, **options: Any) -> dict:
    """Run this script's `mode` in a fresh Python process; returns the JSON it printed."""
    command = [sys.executable, __file__, "--child", mode]
    for key, value in options.items():
        if isinstance(value, bool):  # --model / --no-model, --profile
            command += [f"--{key}"] if value else [f"--no-{key}"] if key == "model" else []
        else:
            command += [f"--{key.replace('_', '-')}", str(value)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAUSEMILL_")}
    done = subprocess.run(command, env=env, cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}")
    line = next(line for line in reversed(done.stdout.splitlines()) if line.startswith("RESULT "))
    return json.loads(line[len("RESULT "):])


# --- the run over one database -------------------------------------------------------------

def run_database(kind: str, folder: Path, work: Path, texts: list[str], args: argparse.Namespace) -> list[dict]:
    """Every night over a fresh database of `kind`; one row per night."""
    from storage.migrate import upgrade

    data_dir = (args.keep or work) / f"data-{kind}"
    state_file = data_dir / "state.json"
    admin = None
    if kind == "postgresql":
        import psycopg2

        admin = psycopg2.connect(ADMIN_URL)
        admin.autocommit = True
    if args.stage == "nights":  # the database the build stage left
        state = json.loads(state_file.read_text())
        name, database_url, rows = state["name"], state["database_url"], state["rows"]
    else:
        shutil.rmtree(data_dir, ignore_errors=True)
        data_dir.mkdir(parents=True)
        name, rows = f"clausemill_nightly_{os.getpid()}", []
        if admin is not None:
            with admin.cursor() as cursor:
                cursor.execute(f'CREATE DATABASE "{name}"')
        database_url = (f"postgresql+psycopg2://postgres@127.0.0.1:5432/{name}" if kind == "postgresql"
                        else f"sqlite:///{data_dir / 'clausemill.sqlite'}")
    common = {"database_url": database_url, "data_dir": data_dir, "folder": folder, "files": args.files,
              "model": args.model}
    nights = [*(["first"] if args.stage != "nights" else []),
              *(args.nights.split(",") if args.stage != "build" else []), *(["p"] if args.profile else [])]
    try:
        upgrade(database_url)
        rng = random.Random(43)
        share = max(1, round(args.files * args.changed))
        chosen = rng.sample(range(args.templates, args.files), 2 * share)  # (b)'s and (c)'s files, apart
        for label in nights:
            vacuum(admin, name)
            if label == "b":
                touch(folder, chosen[:share])
            if label == "c":
                edit(folder, chosen[share:], texts)
            result = child("night", **common, profile=label == "p")
            rows.append({"database": kind, "night": label, **result})
            show_row(rows[-1])
            if label == "first":
                vacuum(admin, name)
                marked = child("mark", **common, batch_id=result["batch_id"], templates=args.templates,
                               results=args.results)
                given = ("given their template's results" if args.results == "audited" else
                         "given their file facts and marked done, with no findings, review items or assessment")
                print(f"  [{kind}] marked audited: {args.templates} templates audited for real in "
                      f"{marked['audited_s']:.1f} s; findings per document {marked['findings_per_document']}, "
                      f"review items {marked['items_per_document']:.1f}, assessment JSON "
                      f"{marked['assessment_bytes'] / 1024:,.0f} KB; the other {args.files - args.templates:,} "
                      f"{given} in {marked['copied_s']:.1f} s", flush=True)
                rows[-1]["marked"] = marked
        for row in rows:  # the size after the last night only
            row.pop("database_bytes", None)
        rows[-1]["database_bytes"], rows[-1]["findings_rows"] = database_bytes(kind, database_url)
    finally:
        if args.stage == "build":  # kept for the nights stage
            state_file.write_text(json.dumps({"name": name, "database_url": database_url, "rows": rows}))
        else:
            if admin is not None:
                with admin.cursor() as cursor:
                    cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            shutil.rmtree(data_dir, ignore_errors=True)
            # the folder as written, for the next database: the edited files back
            for index in range(args.files):
                if file_path(folder, index).read_bytes().endswith(b"(amended)\n"):
                    file_path(folder, index).write_text(texts[index % len(texts)] + reference_line(index),
                                                        encoding="utf-8")
        if admin is not None:
            admin.close()
    return rows


def vacuum(admin: Any, name: str) -> None:
    """VACUUM ANALYZE the PostgreSQL database, as autovacuum would have by the time a night starts:
    the server here runs with autovacuum off, and without statistics the planner of
    `record_facts`' same-bytes query scans the whole batch for every document (the marking of
    100,000 documents ran past 8 minutes before this was added)."""
    if admin is None:
        return
    import psycopg2

    connection = psycopg2.connect(f"postgresql://postgres@127.0.0.1:5432/{name}")
    connection.autocommit = True
    try:
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
    finally:
        connection.close()


def database_bytes(kind: str, database_url: str) -> tuple[int, int]:
    """The database's bytes on disk (SQLite: the file and its WAL) and its findings rows."""
    from sqlalchemy import create_engine, text

    engine = create_engine(database_url)
    with engine.connect() as connection:
        findings = connection.execute(text("SELECT count(*) FROM findings")).scalar_one()
        size = (None if kind == "sqlite" else
                connection.execute(text("SELECT pg_database_size(current_database())")).scalar_one())
    engine.dispose()
    if kind == "sqlite":
        path = Path(database_url.removeprefix("sqlite:///"))
        size = sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))
    return int(size), int(findings)


def show_row(row: dict) -> None:
    print(f"  [{row['database']}] {NIGHTS[row['night']]}: {row['wall']:.1f} s, hashed {row['hashed']:,}, "
          f"to re-audit {row['to_send']:,}, carried {row['carried']:,}, {row['statements']:,} SQL statements "
          f"({row['sql_seconds']:.1f} s in them), peak RSS {row['peak']:.0f} MB", flush=True)
    if row.get("profile"):
        print(row["profile"])


def table(rows: list[dict], files: int) -> None:
    print("\n| database | night | files | hashed | to re-audit | carried | start_run s | collect_inputs s | "
          "create_batch s | plan_batch s | SQL statements | in SQL s | peak RSS MB (before) |\n"
          "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['database']} | {NIGHTS[r['night']]} | {r['documents']:,} | {r['hashed']:,} | {r['to_send']:,} | "
              f"{r['carried']:,} | **{r['wall']:.1f}** | {r.get('collect_inputs', 0):.1f} | "
              f"{r.get('create_batch', 0):.1f} | {r.get('plan_batch', 0):.1f} | {r['statements']:,} | "
              f"{r['sql_seconds']:.1f} | {r['peak']:.0f} ({r['rss_before']:.0f}) |")
    for r in rows:
        if "database_bytes" in r:
            nights = sum(1 for o in rows if o["database"] == r["database"])
            print(f"{r['database']}: database {r['database_bytes'] / 2**20:,.0f} MB and {r['findings_rows']:,} findings "
                  f"rows after {nights} night(s) of {files:,} files ({r['database_bytes'] / files / nights:,.0f} bytes "
                  f"per document per night)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--database", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--changed", type=float, default=0.01, help="Share of the files touched in (b), edited in (c).")
    parser.add_argument("--templates", type=int, default=20, help="Sample contracts audited for real.")
    parser.add_argument("--model", action=argparse.BooleanOptionalAction, default=True,
                        help="Audits with the model (the default), or rules only.")
    parser.add_argument("--nights", default="a,b,c", help="Which nights follow the first (a, b, c; in this order).")
    parser.add_argument("--results", choices=("audited", "none"), default="audited",
                        help="What the documents not audited for real are given: their template's results (the "
                             "default), or none (file facts only: the planner's own cost without results to carry).")
    parser.add_argument("--profile", action="store_true", help="Then a night (a) again, under cProfile.")
    parser.add_argument("--keep", type=Path, help="Write the contracts here and keep them (else a temporary folder); "
                                                   "the databases' data folders go here too.")
    parser.add_argument("--stage", choices=("all", "build", "nights"), default="all",
                        help="build: the first night and the marking, then stop, the database kept (needs --keep); "
                             "nights: the nights on the database the build left, then drop it. Splits a long run in two.")
    parser.add_argument("--child", choices=("night", "mark"), help=argparse.SUPPRESS)
    for hidden in ("--database-url", "--data-dir", "--folder", "--batch-id"):
        parser.add_argument(hidden, help=argparse.SUPPRESS)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a timeout's SIGTERM still drops the database
    if args.stage != "all" and not args.keep:
        parser.error("--stage build|nights needs --keep DIR")
    if args.child:
        print("RESULT " + json.dumps((night if args.child == "night" else mark_audited)(args)), flush=True)
        return
    with tempfile.TemporaryDirectory(prefix="clausemill-nightly-") as tmp:
        work = Path(tmp)
        folder = args.keep or work / "contracts"
        started = time.perf_counter()
        texts = template_texts(args.templates)
        if args.keep and all(file_path(folder, i).is_file() and file_path(folder, i).read_bytes() ==
                             (texts[i % len(texts)] + reference_line(i)).encode()
                             for i in [*range(0, args.files, max(1, args.files // 1000)), args.files - 1]):
            print(f"{args.files:,} contracts already in {folder} (a sample of them checked)", flush=True)
        else:
            size = write_contracts(folder, args.files, texts)
            print(f"{args.files:,} contracts ({size / 2**20:,.0f} MB, {size / args.files / 1024:.1f} KB each, "
                  f"{args.templates} templates) written in {time.perf_counter() - started:.0f} s to {folder}", flush=True)
        rows = []
        for kind in ("sqlite", "postgresql") if args.database == "both" else (args.database,):
            rows += run_database(kind, folder, work, texts, args)
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"\n{platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"model {'on' if args.model else 'off'}, results {args.results}; "
          f"1% = {max(1, round(args.files * args.changed)):,} files")
    table(rows, args.files)


if __name__ == "__main__":
    main()
