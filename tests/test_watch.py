"""The drop folder: real `clausemill watch` processes over real inboxes, with real workers, in
both modes; kill -9 of the watcher and of a worker; a mount that raises no file-system events.

Every scenario ends with the same check: each dropped file is in exactly one outbox folder,
with one intake row, one document row (none for a duplicate of an earlier audit) and one set
of findings, and bytes already audited were never audited again.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import datetime
from html import escape
from pathlib import Path, PurePosixPath

import pytest
from sqlalchemy import func, select

from conftest import REPO, run_cli, wait_until
from pipelines.datamodel import DocumentStatus, IntakeState
from pipelines.intake.rules import (
    ERROR_SUFFIX, OUTCOME_FOLDERS, UNDECODABLE_NAME, DropFolder, Signature, error_file, free_path, ignored, is_outage,
    is_stable, name_refusal, observe, outbox_of, outcome_folder, outcome_state, storable_name,
)
from pipelines.samples.broken import write_broken_samples
from pipelines.samples.contracts import generate_contract
from pipelines.samples.hostile import HOSTILE_NAMES, write_named_entry
from pipelines.samples.render import write_txt
from pipelines.settings import Settings
from storage import intake as ledger
from storage import repository, schema
from storage.database import session_scope
from storage.schema import utcnow
from test_dag_embedded import processes_using

FAST = {
    "CLAUSEMILL_MODEL_ENABLED": "false",  # the model is not what these tests are about
    "CLAUSEMILL_CPU_CONCURRENCY": "2",
    "CLAUSEMILL_WATCH_STABLE_S": "2",
    "CLAUSEMILL_WATCH_BATCH_WINDOW_S": "1",
    "CLAUSEMILL_WATCH_RESCAN_S": "3",
    # Messages lost with a killed worker or watcher are re-sent once nothing has moved their
    # document for three heartbeats + margin: 3 × 1 + 4 s here instead of 45.
    "CLAUSEMILL_HEARTBEAT_INTERVAL_S": "1",
    "CLAUSEMILL_RECOVERY_MARGIN_S": "4",
    "CLAUSEMILL_RECOVERY_INTERVAL_S": "1",
}
PROCESSED, FAILED, DUPLICATE = IntakeState.PROCESSED, IntakeState.FAILED, IntakeState.DUPLICATE
IGNORED = (".hidden.txt", "~$lock.docx", "download.pdf.part", "draft.tmp", "movie.crdownload", ".staging/later.txt")


# --- the rules, as plain functions ---------------------------------------------------------------

def test_names_still_being_written_or_hidden_are_ignored() -> None:
    for name in IGNORED + ("a/.git/x.pdf", "Report.PDF.CRDOWNLOAD"):
        assert ignored(PurePosixPath(name)), name
    for name in ("contract.pdf", "with spaces.txt", "-leading-dash.txt", "ünïcødé.docx", "sub/x.pdf", "a.partial.pdf"):
        assert not ignored(PurePosixPath(name)), name


def test_a_file_is_stable_once_unchanged_for_the_window_on_our_clock() -> None:
    first = observe(None, Signature(10, 1, 7), now=100.0)
    assert not is_stable(first, 104.9, 5.0)
    assert observe(first, Signature(10, 1, 7), 104.0) is first and is_stable(first, 105.0, 5.0)
    grown = observe(first, Signature(20, 2, 7), 104.0)  # an append restarts the clock
    assert grown.since == 104.0 and not is_stable(grown, 105.0, 5.0)
    replaced = observe(grown, Signature(20, 2, 8), 106.0)  # same size and time, another inode
    assert replaced.since == 106.0
    # `cp -p` sets the mtime to the past: what counts is how long we saw it unchanged
    old = observe(None, Signature(10, 0, 9), now=100.0)
    assert not is_stable(old, 101.0, 5.0)


def test_finished_files_never_overwrite_and_processed_is_split_by_day(tmp_path: Path) -> None:
    day = datetime(2024, 5, 17, 23, 30)
    assert outcome_folder(tmp_path, PROCESSED, day) == tmp_path / "processed" / "2024-05-17"
    assert outcome_folder(tmp_path, FAILED, day) == tmp_path / "failed"
    assert outcome_folder(tmp_path, DUPLICATE, day) == tmp_path / "duplicates"
    taken = {tmp_path / "a.pdf", tmp_path / "a (1).pdf.error.json", tmp_path / "README"}
    assert free_path(tmp_path, PurePosixPath("a.pdf"), taken.__contains__) == tmp_path / "a (2).pdf"
    assert free_path(tmp_path, PurePosixPath("README"), taken.__contains__) == tmp_path / "README (1)"
    assert free_path(tmp_path, PurePosixPath("-x.txt"), taken.__contains__) == tmp_path / "-x.txt"
    assert error_file(tmp_path / "a.pdf") == tmp_path / ("a.pdf" + ERROR_SUFFIX)
    assert outcome_state(DocumentStatus.DONE) is PROCESSED and outcome_state(DocumentStatus.FAILED) is FAILED
    assert outcome_state(DocumentStatus.DUPLICATE) is DUPLICATE


def test_names_in_the_outbox_fit_name_max_whatever_name_was_dropped(tmp_path: Path) -> None:
    """Each name free_path gives, its " (n)" variants and their error files are created for real
    (ext4 and tmpfs refuse a name over 255 bytes); the stem is cut at a character boundary, the
    file type kept.  The probe's 240-byte name stopped the watcher through a temporary name of
    260 bytes, a 250-byte one through its 261-byte error file."""
    expected = {
        "L" * 251 + ".txt": ("L" * 237 + "….txt", "L" * 233 + "… (1).txt"),
        "契" * 83 + "é.txt": ("契" * 79 + "….txt", "契" * 77 + "… (1).txt"),  # 3-byte characters
        "a" + "é" * 125 + ".txt": ("a" + "é" * 118 + "….txt", "a" + "é" * 116 + "… (1).txt"),
        "N" * 255: ("N" * 241 + "…", "N" * 237 + "… (1)"),
        "a." + "x" * 253: ("a." + "x" * 239 + "…", "a." + "x" * 235 + "… (1)"),  # no file type
        "F" * 246 + ".pdf": ("F" * 237 + "….pdf", "F" * 233 + "… (1).pdf"),
        "L" * 236 + ".txt": ("L" * 236 + ".txt", "L" * 236 + " (1).txt"),  # fits: kept as it is
    }
    for name, names in expected.items():
        assert len(name.encode()) >= 240
        made = []
        for _ in names:
            target = free_path(tmp_path, PurePosixPath(name), os.path.lexists)
            target.write_text("dropped")
            error_file(target).write_text("{}")
            made.append(target.name)
        assert tuple(made) == names
    nested = free_path(tmp_path, PurePosixPath("x" * 255 + "/" + "y" * 255), os.path.lexists)
    assert nested == tmp_path / ("x" * 255) / ("y" * 241 + "…")
    for name in expected:  # a file system with a shorter limit (eCryptfs: 143 bytes)
        target = free_path(tmp_path / "ecryptfs", PurePosixPath(name), os.path.lexists, name_max=143)
        assert len(error_file(target).name.encode()) <= 143 and "\ufffd" not in target.name


def test_a_name_that_is_not_utf8_is_kept_printable_and_refused() -> None:
    for dropped, kept in ((b"caf\xff.txt", "caf\\xff.txt"),
                          (b"contrat r\xe9sili\xe9.txt", "contrat r\\xe9sili\\xe9.txt"),  # Latin-1
                          (b"\xed\xa0\x80.txt", "\\xed\\xa0\\x80.txt")):  # a UTF-8 surrogate: not UTF-8 either
        name = os.fsdecode(dropped)
        assert storable_name(name) == kept and name_refusal(name) == UNDECODABLE_NAME
        kept.encode("utf-8")  # what a database column holds
    for fine in ("-rf.txt", "line\nbreak.txt", "invoice \u202etxt.exe", "契約.txt", "back\\slash \\xff.txt"):
        assert storable_name(fine) == fine and name_refusal(fine) is None


def test_only_errors_of_the_whole_outbox_or_process_are_outages() -> None:
    def error(code: int) -> OSError:
        return OSError(code, os.strerror(code))

    for code in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.ENOTCONN, errno.EMFILE):
        assert is_outage(error(code)), errno.errorcode[code]
    for code in (errno.ENAMETOOLONG, errno.EILSEQ, errno.EACCES, errno.ENOTDIR, errno.EEXIST, errno.ENOENT):
        assert not is_outage(error(code)), errno.errorcode[code]
    assert not is_outage(error(errno.EIO), reading=True)  # a damaged block of one dropped file
    assert is_outage(error(errno.EMFILE), reading=True)


def test_names_in_the_clis_tables_are_text_never_markup_or_terminal_codes() -> None:
    """`clausemill intake` and the audit's summary show dropped names through one function."""
    from rich.console import Console

    from pipelines.cli.console import shown

    console = Console(width=200, record=True, color_system=None)
    for name in ("contract [final].pdf", "evil\x1b[31mred\n.txt", "invoice\u202efdp.txt"):
        console.print(shown(name))
    assert console.export_text().splitlines() == [
        "contract [final].pdf", "evil\\x1b[31mred\\x0a.txt", "invoice[U+202E]fdp.txt"]


def test_the_outbox_must_lie_beside_the_inbox(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    for outbox in (tmp_path / "in", tmp_path / "in" / "out"):
        with pytest.raises(ValueError, match="inside the inbox"):
            DropFolder.at(tmp_path / "in", outbox).check()
    with pytest.raises(ValueError, match="not a folder"):
        DropFolder.at(tmp_path / "missing", tmp_path / "out").check()
    drop = DropFolder.at(tmp_path / "in", tmp_path / "out")
    drop.check()
    work = drop.work_path("t0k3n", PurePosixPath("sub folder/x.pdf"))
    assert drop.name_in_work(work) == PurePosixPath("sub folder/x.pdf")
    assert outbox_of(work, PurePosixPath("sub folder/x.pdf")) == drop.outbox


def test_watch_explains_an_outbox_it_cannot_use(embedded_env: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    inside = run_cli(["watch", str(tmp_path / "in"), "--out", str(tmp_path / "in" / "out")], embedded_env)
    assert inside.returncode == 2 and "lies inside the inbox" in inside.stderr, inside.stderr
    assert not (tmp_path / "in" / "out").exists()


# --- helpers -------------------------------------------------------------------------------------

class WatcherProcess:
    """A real `clausemill watch` in its own session (so kill -9 hits the watcher alone)."""

    def __init__(self, env: dict[str, str], inbox: Path, outbox: Path, log: Path, *extra: str) -> None:
        self.log = log
        with open(log, "ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "pipelines.cli", "watch", str(inbox), "--out", str(outbox), *extra],
                env=env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()

    def stop(self, sig: signal.Signals = signal.SIGTERM) -> int:
        """SIGTERM as a service manager stops it, SIGINT as Ctrl-C does."""
        self.process.send_signal(sig)
        return self.process.wait(timeout=90)

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def cpu_worker(self) -> int | None:
        """The embedded cpu worker this watcher started, if it runs."""
        for stat_file in Path("/proc").glob("[0-9]*/stat"):
            try:
                ppid = int(stat_file.read_text().rsplit(")", 1)[1].split()[1])
                cmdline = (stat_file.parent / "cmdline").read_bytes().split(b"\0")
            except (OSError, IndexError, ValueError):
                continue
            if ppid == self.process.pid and b"worker" in cmdline and b"cpu" in cmdline:
                return int(stat_file.parent.name)
        return None


@pytest.fixture()
def watchers(tmp_path: Path):  # type: ignore[no-untyped-def]
    started: list[tuple[WatcherProcess, str]] = []

    def start(env: dict[str, str], inbox: Path, outbox: Path, *extra: str) -> WatcherProcess:
        watcher = WatcherProcess(env, inbox, outbox, tmp_path / f"watch-{len(started)}.log", *extra)
        started.append((watcher, env["CLAUSEMILL_DATA_DIR"]))
        return watcher

    yield start
    for watcher, _ in started:
        if watcher.process.poll() is None:
            watcher.kill()
    # Embedded workers of a watcher killed with -9 outlive it, as they would in production.
    for data_dir in {data_dir for _, data_dir in started}:
        for pid in processes_using(data_dir):
            with_suppressed_lookup(os.kill, pid, signal.SIGKILL)


def with_suppressed_lookup(call, *args) -> None:  # type: ignore[no-untyped-def]
    try:
        call(*args)
    except ProcessLookupError:
        pass


def eventually(predicate, timeout: float) -> bool:  # type: ignore[no-untyped-def]
    """Like wait_until, for a moment worth waiting for that may also pass unseen."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def db_url(env: dict[str, str]) -> str:
    return env.get("CLAUSEMILL_DATABASE_URL") or f"sqlite:///{Path(env['CLAUSEMILL_DATA_DIR']) / 'clausemill.sqlite'}"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def rows(env: dict[str, str]) -> list[schema.IntakeFile]:
    return ledger_at(db_url(env))


def ledger_at(url: str) -> list[schema.IntakeFile]:
    with session_scope(url, write=False) as session:
        return ledger.ledger(session)


def count_rows(env: dict[str, str], *states: IntakeState) -> int:
    return sum(1 for row in rows(env) if row.state in states)


def all_ended(env: dict[str, str], expected: int) -> bool:
    found = rows(env)
    return len(found) >= expected and all(row.state.ended for row in found)


def tiny_contract(i: int) -> str:
    return (f"MASTER SERVICES AGREEMENT No. {i}\n\nThis Agreement is made between Acme {i} Inc. and Beta LLC.\n"
            "This Agreement shall be governed by the laws of the State of New York.\n"
            f"The term of this Agreement is {i % 5 + 1} years. Either party may terminate it on 30 days notice.\n")


class Drops:
    """What a test dropped: (name, sha256 or None for a link, the state it must end in).

    State None: one of several files with the same bytes dropped together; the first claimed
    is processed and the others are its duplicates."""

    def __init__(self, inbox: Path) -> None:
        self.inbox = inbox
        self.files: list[tuple[str, str | None, IntakeState | None]] = []

    def contract(self, name: str, seed: int, state: IntakeState | None = PROCESSED, folder: Path | None = None) -> Path:
        path = (folder or self.inbox) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        write_txt(generate_contract(seed, short=True), path)
        if folder is None:
            self.add(name, path, state)
        return path

    def tiny(self, name: str, i: int) -> None:
        (self.inbox / name).write_text(tiny_contract(i))
        self.add(name, self.inbox / name, PROCESSED)

    def copy(self, source: Path, name: str, state: IntakeState | None) -> None:
        shutil.copyfile(source, self.inbox / name)
        self.add(name, self.inbox / name, state)

    def add(self, name: str, path: Path, state: IntakeState | None, digest: str | None = ...) -> None:  # type: ignore[assignment]
        self.files.append((name, sha256(path) if digest is ... else digest, state))

    def hostile(self, name: bytes, kind: str, i: int, link_to: Path) -> str:
        """An entry of HOSTILE_NAMES; returns the name the ledger must keep.  A contract whose name
        is UTF-8 is processed; every other entry fails, a name that is not UTF-8 kept with its
        odd bytes written as \\xNN."""
        path = write_named_entry(self.inbox, name, kind, tiny_contract(i), link_to)
        try:
            kept, state = name.decode("utf-8"), PROCESSED if kind == "contract" else FAILED
        except UnicodeDecodeError:
            kept, state = name.decode("utf-8", "backslashreplace"), FAILED
        self.add(kept, path, state, sha256(path) if kind in ("contract", "html") else None)
        return kept


def assert_each_file_ended_once(env: dict[str, str], outbox: Path, drops: Drops) -> list[schema.IntakeFile]:
    url = db_url(env)
    with session_scope(url, write=False) as session:
        found = ledger.ledger(session)
        documents = {d.id: d for d in session.scalars(select(schema.Document))}
        repeated_findings = session.execute(
            select(schema.Finding.document_id, schema.Finding.producer, schema.Finding.category, schema.Finding.start,
                   schema.Finding.end, schema.Finding.source, func.count())
            .group_by(schema.Finding.document_id, schema.Finding.producer, schema.Finding.category,
                      schema.Finding.start, schema.Finding.end, schema.Finding.source)
            .having(func.count() > 1)).all()
        rule_findings = dict(session.execute(
            select(schema.Finding.document_id, func.count()).where(schema.Finding.producer == "rules")
            .group_by(schema.Finding.document_id)).all())
    # one intake row per file dropped, in the state it must end in
    twins = {name for name, _, state in drops.files if state is None}
    first_claimed = {min((r for r in found if r.name in twins and r.sha256 == sha), key=lambda r: r.id).name
                     for sha in {r.sha256 for r in found if r.name in twins}}
    expected = Counter((name, state or (PROCESSED if name in first_claimed else DUPLICATE))
                       for name, _, state in drops.files)
    assert Counter((r.name, r.state) for r in found) == expected
    assert Counter(r.name for r in found) == Counter(name for name, _, _ in drops.files)
    # in exactly one outbox folder each, and nothing else there
    in_outbox = {p for folder in OUTCOME_FOLDERS.values() for p in (outbox / folder).rglob("*")
                 if (p.is_symlink() or not p.is_dir()) and not p.name.endswith(ERROR_SUFFIX)}
    assert sorted(map(str, in_outbox)) == sorted(r.outcome_path for r in found)
    assert not [p for p in (outbox / ".work").rglob("*") if not p.is_dir()], "files left in the work folder"
    digests = Counter((name, digest) for name, digest, _ in drops.files)
    by_id = {r.id: r for r in found}
    for r in found:
        outcome = Path(r.outcome_path)
        assert outcome.relative_to(outbox).parts[0] == OUTCOME_FOLDERS[r.state], r.outcome_path
        if stat.S_ISREG(os.lstat(outcome).st_mode):  # not a link, a FIFO
            assert digests[(r.name, sha256(outcome))], f"{outcome} does not hold the bytes dropped as {r.name}"
            assert sha256(outcome) == r.sha256
        error = error_file(outcome)
        if r.state is PROCESSED:
            assert not error.exists()
            document = documents[r.document_id]
            assert document.status is DocumentStatus.DONE and document.path == r.work_path
            assert rule_findings.get(document.id), f"{r.name} was processed without findings"
            continue
        record = json.loads(error.read_text())
        assert record["file"] == r.name and record["outcome"] == r.state and record["reason"] == r.reason
        assert r.reason and record["time"] and record["stage"]
        if r.state is DUPLICATE:
            original = by_id[r.original_id]
            assert record["original"]["file"] == original.name and original.sha256 == r.sha256
            assert original.state is PROCESSED and original.name in r.reason
        elif r.document_id:
            assert documents[r.document_id].status is DocumentStatus.FAILED
    # one document row per submitted file, audited once, with one set of findings
    submitted = [r for r in found if r.document_id]
    assert len({r.document_id for r in submitted}) == len(submitted)
    assert Counter(d.path for d in documents.values()).most_common(1)[0][1] == 1
    assert {d.path for d in documents.values()} == {r.work_path for r in submitted}
    audited = Counter(d.sha256 for d in documents.values() if d.status is DocumentStatus.DONE)
    assert audited and audited.most_common(1)[0][1] == 1, "the same bytes were audited twice"
    assert repeated_findings == []
    return found


def assert_reports_written(outbox: Path, found: list[schema.IntakeFile]) -> None:
    for batch_id in {r.batch_id for r in found if r.batch_id}:
        report = json.loads((outbox / "reports" / batch_id / "report.json").read_text())
        assert {d["filename"] for d in report["documents"]} == {
            PurePosixPath(r.name).name for r in found if r.batch_id == batch_id}
    portfolio = (outbox / "report.html").read_text()
    assert (outbox / "report.xlsx").stat().st_size > 0
    assert all(escape(PurePosixPath(r.name).name) in portfolio for r in found if r.state is PROCESSED)


def ledger_cli(env: dict[str, str]) -> list[dict]:
    listed = run_cli(["intake", "--json"], env)
    assert listed.returncode == 0, listed.stderr
    return json.loads(listed.stdout)


# --- restart after a kill, step by step ----------------------------------------------------------

def test_a_restart_finishes_each_step_a_kill_interrupted(tmp_path: Path) -> None:
    """The states a kill -9 can leave, made on purpose, and one reconcile + tick over them
    (the embedded broker: the messages sent wait for workers that are not started)."""
    from pipelines.intake.watcher import Watcher
    from pipelines.producer import submit_batch
    from workers.broker import waiting as broker_waiting
    from workers.celery_app import create_app
    from workers.lifecycle import reset_embedded_broker

    settings = Settings(data_dir=tmp_path / "data", model_enabled=False, watch_batch_window_s=0)
    url = settings.effective_database_url
    drop = DropFolder.at(tmp_path / "in", tmp_path / "out")
    drop.inbox.mkdir()
    drop.check()
    reset_embedded_broker(settings)  # the queue folders, as embedded workers find them
    app = create_app(settings)

    def claimed(token: str, name: str, i: int) -> Path:
        path = drop.work_path(token, PurePosixPath(name))
        path.parent.mkdir(parents=True)
        path.write_text(tiny_contract(i))
        return path

    def record(path: Path, **values: object) -> int:
        with session_scope(url) as session:
            row = ledger.record_claim(session, inbox=str(drop.inbox), name=path.name, work_path=str(path),
                                      sha256=sha256(path), size_bytes=path.stat().st_size)
            for key, value in values.items():
                setattr(row, key, value)
            return row.id

    unrecorded = claimed("a", "renamed, not recorded.txt", 1)  # killed between rename and insert
    never_sent = claimed("b", "batch assigned.txt", 2)  # killed before submit_batch
    record(never_sent, batch_id="lost")
    not_linked = claimed("c", "batch created.txt", 3)  # killed between submit_batch and linking
    record(not_linked, batch_id="made")
    submit_batch(app, settings, [not_linked], batch_id="made")
    half_moved = claimed("d", "half moved.txt", 4)  # killed between the hard link and the unlink
    submit_batch(app, settings, [half_moved], batch_id="done")
    target = drop.outbox / "processed" / "2024-01-01" / half_moved.name
    target.parent.mkdir(parents=True)
    os.link(half_moved, target)
    with session_scope(url) as session:
        document_id = session.scalar(select(schema.Document.id).where(schema.Document.batch_id == "done"))
        repository.mark_done(session, document_id)
        repository.finalize_batch_if_complete(session, "done")
    record(half_moved, batch_id="done", state=IntakeState.SUBMITTED, document_id=document_id, outcome_path=str(target))
    (drop.work / "e").mkdir()  # killed between the folder and the rename

    watcher = Watcher(settings, drop, app, poll=False, options={"view": "full"}, view="full")
    watcher.reconcile()
    watcher.tick(time.monotonic())
    with session_scope(url, write=False) as session:
        found = {row.name: row for row in ledger.ledger(session)}
        batches = session.scalars(select(schema.Batch.id)).all()
        documents = session.scalars(select(schema.Document)).all()
    assert set(found) == {"renamed, not recorded.txt", "batch assigned.txt", "batch created.txt", "half moved.txt"}
    assert found["renamed, not recorded.txt"].state is IntakeState.SUBMITTED
    assert found["batch assigned.txt"].state is IntakeState.SUBMITTED and found["batch assigned.txt"].batch_id == "lost"
    assert found["batch created.txt"].state is IntakeState.SUBMITTED and found["batch created.txt"].batch_id == "made"
    assert found["half moved.txt"].state is PROCESSED and target.exists() and not half_moved.exists()
    assert target.read_text() == tiny_contract(4)
    assert Counter(d.path for d in documents) == Counter(
        {str(p): 1 for p in (unrecorded, never_sent, not_linked, half_moved)})
    assert "lost" in batches and len(batches) == 4  # made, done, lost, and one for the unrecorded claim
    waiting = broker_waiting(settings).documents
    assert {found[name].document_id for name in ("renamed, not recorded.txt", "batch assigned.txt",
                                                 "batch created.txt")} <= waiting
    assert not (drop.work / "e").exists() and not (drop.work / "d").exists()
    assert (drop.outbox / "reports" / "done" / "report.json").exists()


def test_hostile_names_end_in_failed_one_tick_at_a_time(tmp_path: Path) -> None:
    """Files refused at the claim need no worker, so the loop's steps run here in-process: each
    hostile entry ends in failed/ with its error record under a name that fits, whatever the
    outbox already holds, and the contract dropped after them is submitted."""
    from pipelines.intake.watcher import Watcher
    from workers.celery_app import create_app
    from workers.lifecycle import reset_embedded_broker

    settings = Settings(data_dir=tmp_path / "data", model_enabled=False, watch_batch_window_s=0, watch_stable_s=0,
                        watch_rescan_s=0)
    drop = DropFolder.at(tmp_path / "in", tmp_path / "out")
    drop.inbox.mkdir()
    drop.check()
    reset_embedded_broker(settings)
    watcher = Watcher(settings, drop, create_app(settings), poll=False, options={"view": "full"}, view="full")
    outside, elsewhere = tmp_path / "outside.txt", tmp_path / "elsewhere"
    outside.write_text(tiny_contract(0))
    elsewhere.mkdir()
    inbox = os.fsencode(drop.inbox)

    def drop_entry(name: bytes, kind: str, link_to: Path = outside) -> None:
        write_named_entry(drop.inbox, name, kind, tiny_contract(len(name)), link_to)

    # a kill between an undecodable name's claim and its row: found in the work folder on restart
    killed = drop.claim_path(os.fsdecode(b"killed \xff.txt"))[1]
    killed.parent.mkdir(parents=True)
    killed.write_text(tiny_contract(1))
    # a row an older watcher planned under a name too long for its error file, and retried forever
    stuck = drop.work / ("0" * 32) / ("F" * 246 + ".pdf")
    stuck.parent.mkdir()
    stuck.write_text("<html>a login page</html>")
    with session_scope(settings.effective_database_url) as session:
        row = ledger.record_claim(session, inbox=str(drop.inbox), name=stuck.name, work_path=str(stuck),
                                  sha256=sha256(stuck), size_bytes=stuck.stat().st_size, reason="not a contract")
        row.outcome_path = str(drop.outbox / "failed" / stuck.name)
    for name, kind in ((b"L" * 236 + b".txt", "symlink"), (b"S" * 255, "symlink"), (b"P" * 251 + b".txt", "fifo"),
                       (b"caf\xff.txt", "contract"), (b"\xff" * 251 + b".txt", "contract"), (b"x", "symlink")):
        drop_entry(name, kind)
    os.mkdir(inbox + b"/sub\xff")
    drop_entry(b"sub\xff/inner.txt", "contract")
    drop_entry(b"d", "symlink", elsewhere)
    deep = drop.inbox.joinpath(*["f" * 240] * 16)  # folders of 4,070 bytes: in the work folder, over PATH_MAX
    deep = deep / ("g" * (4069 - len(os.fsencode(deep))))
    deep.mkdir(parents=True)
    (deep / "c.txt").write_text(tiny_contract(3))
    watcher.reconcile()
    watcher.tick(time.monotonic())
    drop_entry(b"L" * 236 + b".txt", "symlink")  # the same long name again: " (1)"
    os.mkdir(inbox + b"/x")  # the link named x was taken
    drop_entry(b"x/y", "fifo")  # failed/x is a link to a file, where its folder should be
    os.mkdir(inbox + b"/d")
    drop_entry(b"d/z", "symlink")  # failed/d is a link to a folder outside the outbox
    (drop.inbox / "after them.txt").write_text(tiny_contract(2))
    watcher.tick(time.monotonic() + 1)
    watcher.tick(time.monotonic() + 2)

    found = ledger_at(settings.effective_database_url)
    contract = next(row for row in found if row.name == "after them.txt")
    assert contract.state is IntakeState.SUBMITTED
    failed = drop.outbox / "failed"
    expected = [  # the name kept, where it ends in failed/, the start of its reason
        ("killed \\xff.txt", "killed \\xff.txt", UNDECODABLE_NAME),
        ("F" * 246 + ".pdf", "F" * 237 + "….pdf", "not a contract"),
        ("L" * 236 + ".txt", "L" * 236 + ".txt", "a symbolic link"),
        ("L" * 236 + ".txt", "L" * 236 + " (1).txt", "a symbolic link"),  # the same name, dropped again
        ("S" * 255, "S" * 241 + "…", "a symbolic link"),
        ("P" * 251 + ".txt", "P" * 237 + "….txt", "not a regular file"),
        ("caf\\xff.txt", "caf\\xff.txt", UNDECODABLE_NAME),
        ("\\xff" * 251 + ".txt", "\\xff" * 59 + "\\…" + ".txt", UNDECODABLE_NAME),
        ("x", "x", "a symbolic link"),
        ("sub\\xff/inner.txt", "sub\\xff/inner.txt", UNDECODABLE_NAME),
        ("x/y", "y", "not a regular file"),  # at the top of failed/: failed/x is a link, not a folder
        ("d", "d", "a symbolic link"),
        ("d/z", "z", "a symbolic link"),  # not written where failed/d points
    ]
    refused = [row for row in found if row is not contract]
    assert sorted((row.name, row.outcome_path) for row in refused) == sorted(
        (name, str(failed / outcome)) for name, outcome, _ in expected)
    reasons = {str(failed / outcome): reason for _, outcome, reason in expected}
    for row in refused:
        assert row.state is FAILED and row.reason.startswith(reasons[row.outcome_path]), row.name
        record = json.loads(error_file(Path(row.outcome_path)).read_text())
        assert record["file"] == row.name and record["reason"] == row.reason and record["outcome"] == "failed"
        assert outbox_of(Path(row.work_path), PurePosixPath(row.name)) == drop.outbox  # as `clausemill intake` finds it
    assert not [p for p in drop.outbox.rglob(".*") if p.name.endswith(".partial")]
    assert sorted(os.listdir(inbox)) == [b"d", b"f" * 240, b"sub\xff", b"x"]  # folders are left where they are
    assert len(list(deep.iterdir())) == 1  # it cannot be claimed, and cannot stop the others either
    assert not list(elsewhere.iterdir())


# --- the watcher, end to end ---------------------------------------------------------------------

def test_each_dropped_file_ends_once_through_kills_of_the_watcher_and_a_worker(
        embedded_env: dict[str, str], tmp_path: Path, watchers) -> None:  # type: ignore[no-untyped-def]
    env = {**embedded_env, **FAST}
    inbox, outbox, outside = tmp_path / "inbox", tmp_path / "outbox", tmp_path / "outside"
    inbox.mkdir(), outside.mkdir()
    drops = Drops(inbox)
    first = watchers(env, inbox, outbox)

    odd = ["plain.txt", "with spaces.txt", "ünïcødé контракт.txt", "-leading-dash.txt", "sub folder/nested.txt"]
    for seed, name in enumerate(odd):
        drops.contract(name, seed, state=None if name == "plain.txt" else PROCESSED)
    plain_bytes = drops.contract("plain.txt", 0, folder=outside)
    for name in IGNORED:
        (inbox / name).parent.mkdir(parents=True, exist_ok=True)
        (inbox / name).write_text("not for the watcher")
    drops.copy(plain_bytes, "copy of plain.txt", None)  # the same bytes in the same burst: audited once
    broken = tmp_path / "broken"
    broken.mkdir()
    for name in write_broken_samples(broken):
        drops.copy(broken / name, name, FAILED)
    link_target = drops.contract("outside.txt", 40, folder=outside)
    (inbox / "link to outside.txt").symlink_to(link_target)
    drops.add("link to outside.txt", link_target, FAILED, digest=None)
    outside_bytes = link_target.read_bytes()

    written: list[datetime] = []
    slow = Path(tmp_path / "slow.txt")
    write_txt(generate_contract(50, short=True), slow)

    def write_slowly() -> None:
        """Ten chunks a second apart: never quiet for the 2 s a file must be stable."""
        data = slow.read_bytes()
        with open(inbox / "slowly written.txt", "wb") as out:
            for i in range(10):
                out.write(data[i * len(data) // 10:(i + 1) * len(data) // 10])
                out.flush()
                written.append(utcnow())
                time.sleep(1.0)

    writer = threading.Thread(target=write_slowly)
    writer.start()
    drops.add("slowly written.txt", slow, PROCESSED)
    staged = drops.contract("renamed in.txt", 60, folder=inbox / ".staging")
    os.rename(staged, inbox / "renamed in.txt")
    drops.add("renamed in.txt", inbox / "renamed in.txt", PROCESSED)
    old = drops.contract("kept its mtime.txt", 70, folder=outside)
    os.utime(old, (1_577_836_800, 1_577_836_800))  # 2020-01-01
    subprocess.run(["cp", "-p", str(old), str(inbox / "copied with cp -p.txt")], check=True)
    drops.add("copied with cp -p.txt", old, PROCESSED)

    wait_until(lambda: count_rows(env, PROCESSED) >= 1, timeout=60, message="a first file processed")
    first.kill()  # mid-run: files claimed, in batches, moving; the slow writer still writing
    drops.tiny("dropped while no watcher ran.txt", 1)

    second = watchers(env, inbox, outbox)
    wait_until(lambda: second.cpu_worker() is not None, timeout=60, message="the restarted watcher's workers")
    again = watchers(env, inbox, outbox)
    assert again.process.wait(timeout=60) == 1 and "another clausemill watch is running" in again.output()
    writer.join()
    for i in range(30):
        drops.tiny(f"burst {i}.txt", 10 + i)
    eventually(lambda: count_rows(env, IntakeState.SUBMITTED) >= 1, timeout=30)
    worker = second.cpu_worker()
    os.killpg(worker, signal.SIGKILL)  # the whole cpu worker, mid-run: started again, its messages re-sent
    wait_until(lambda: second.cpu_worker() not in (None, worker), timeout=30, message="the cpu worker restarted")

    wait_until(lambda: any(r.name.endswith("plain.txt") and r.state is PROCESSED for r in rows(env)), timeout=60,
               message="plain.txt (or its copy) processed")
    drops.copy(plain_bytes, "plain again.txt", DUPLICATE)  # the bytes of a contract already audited
    drops.copy(broken / "not-a-pdf.pdf", "renamed.pdf", FAILED)  # a failed file dropped again is tried again
    (inbox / "not-a-pdf.pdf").write_text("<html>another session expired</html>")  # same name, other bytes
    drops.add("not-a-pdf.pdf", inbox / "not-a-pdf.pdf", FAILED)
    wait_until(lambda: all_ended(env, len(drops.files)), timeout=120, message="every file in its outbox folder")
    assert second.stop() == 0, second.output()

    found = assert_each_file_ended_once(env, outbox, drops)
    assert_reports_written(outbox, found)
    by_name = {r.name: r for r in found}
    assert sorted(str(p.relative_to(inbox)) for p in inbox.rglob("*") if not p.is_dir()) == sorted(IGNORED)
    # the writer's last chunk went in before the file was taken
    assert by_name["slowly written.txt"].claimed_at >= written[-1]
    processed = {Path(r.outcome_path).relative_to(outbox).parts[2:] for r in found if r.state is PROCESSED}
    assert ("sub folder", "nested.txt") in processed
    assert os.stat(by_name["copied with cp -p.txt"].outcome_path).st_mtime == 1_577_836_800
    assert Path(by_name["link to outside.txt"].outcome_path).is_symlink() and link_target.read_bytes() == outside_bytes
    assert "symbolic link" in by_name["link to outside.txt"].reason
    assert by_name["empty.pdf"].reason == "file is empty (0 bytes)"
    clashes = sorted(Path(r.outcome_path).name for r in found if r.name == "not-a-pdf.pdf")
    assert clashes == ["not-a-pdf (1).pdf", "not-a-pdf.pdf"]
    assert by_name["renamed.pdf"].document_id, "a failed file dropped again is audited again, not a duplicate"

    listed = ledger_cli(env)
    assert Counter(entry["file"] for entry in listed) == Counter(name for name, _, _ in drops.files)
    assert all(entry["report"] for entry in listed if entry["batch"])
    assert {entry["state"] for entry in listed} == {"processed", "failed", "duplicate"}


def test_a_mount_that_raises_no_events_is_found_by_rescans_and_by_polling(
        embedded_env: dict[str, str], tmp_path: Path, watchers) -> None:  # type: ignore[no-untyped-def]
    """bindfs shows a folder written outside the mount: inotify on the mount sees nothing."""
    if shutil.which("bindfs") is None:
        reason = "bindfs is not installed (ops/install-system-deps.sh --test)"
        pytest.fail(reason) if os.environ.get("CI") else pytest.skip(reason)
    source, mount = tmp_path / "share", tmp_path / "mount"
    (source / "inbox").mkdir(parents=True), mount.mkdir()
    mounted = subprocess.run(["bindfs", str(source), str(mount)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"bindfs cannot mount here: {mounted.stderr.strip()}")
    try:
        inbox, outbox = mount / "inbox", mount / "outbox"
        drops = Drops(inbox)
        for mode, extra, rescan, stop in (("events", (), "2", signal.SIGTERM),
                                          ("polling", ("--poll",), "600", signal.SIGINT)):
            env = {**embedded_env, **FAST, "CLAUSEMILL_WATCH_RESCAN_S": rescan}
            watcher = watchers(env, inbox, outbox, *extra)
            wait_until(lambda w=watcher: w.cpu_worker() is not None, timeout=60, message="the watcher's workers")
            time.sleep(1)  # past the first scan: only a rescan or the poller can find what comes now
            for i in range(2):
                name = f"written outside the mount, {mode} {i}.txt"
                (source / "inbox" / name).write_text(tiny_contract(i + (10 if extra else 0)))
                drops.add(name, source / "inbox" / name, PROCESSED)
            wait_until(lambda e=env: all_ended(e, len(drops.files)), timeout=60, message=f"files found by {mode}")
            assert watcher.stop(stop) == (130 if stop is signal.SIGINT else 0), watcher.output()
            assert processes_using(env["CLAUSEMILL_DATA_DIR"]) == [], "embedded workers outlived the watcher"
        assert_each_file_ended_once(env, outbox, drops)
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_hostile_names_never_stop_the_watcher(
        embedded_env: dict[str, str], tmp_path: Path, watchers) -> None:  # type: ignore[no-untyped-def]
    """A security probe's findings against a real `clausemill watch`.  A symbolic link with a
    240-byte name stopped it for good: the temporary file beside its error record needed a
    260-byte name, and ENAMETOOLONG was taken for an outage and retried forever, so every later
    file was claimed and never audited.  A name that is not UTF-8 made watchfiles raise, which
    ended file-system events for good.  Rescans are 600 s apart here: what the watcher finds,
    events found (or the rescan a restarted watch asks for)."""
    env = {**embedded_env, **FAST, "CLAUSEMILL_WATCH_RESCAN_S": "600"}
    inbox, outbox, outside = tmp_path / "inbox", tmp_path / "outbox", tmp_path / "outside"
    inbox.mkdir(), outside.mkdir()
    drops = Drops(inbox)
    watcher = watchers(env, inbox, outbox)
    wait_until(lambda: watcher.cpu_worker() is not None, timeout=60, message="the watcher's workers")
    time.sleep(1)  # past the first scan

    long_link = drops.hostile(b"L" * 236 + b".txt", "symlink", 0, Path("/etc/hostname"))  # the probe's
    drops.tiny("after the long link.txt", 1)
    wait_until(lambda: all_ended(env, len(drops.files)), timeout=90, message="the long link and the contract after it")
    drops.hostile(b"L" * 236 + b".txt", "symlink", 0, Path("/etc/hostname"))  # again: " (1)" beside the first
    failing = drops.hostile(b"F" * 246 + b".pdf", "html", 2, outside)  # fails at ingest: NAME.error.json is 261 bytes
    drops.hostile(b"-rf.txt", "contract", 3, outside)
    drops.hostile(b"line\nbreak.txt", "contract", 4, outside)
    drops.hostile("invoice \u202etxt.exe".encode(), "contract", 5, outside)
    drops.hostile(b"P" * 251 + b".txt", "fifo", 6, outside)
    drops.hostile(("契" * 83 + "é.txt").encode(), "contract", 7, outside)
    drops.tiny("after the long names.txt", 8)
    wait_until(lambda: all_ended(env, len(drops.files)), timeout=90, message="the long names and the contract after")

    undecodable = drops.hostile(b"caf\xff.txt", "contract", 9, outside)
    wait_until(lambda: all_ended(env, len(drops.files)), timeout=60, message="the name that is not UTF-8, by a rescan")

    def watched_again() -> bool:  # it stopped the watch twice: dropped, then renamed away by its claim
        stopped, again = (watcher.output().count(line) for line in (
            "file-system events stopped", "watching for file-system events again"))
        return stopped == again == 2

    wait_until(watched_again, timeout=30, message="file-system events watched again")
    time.sleep(2)  # past the new watch's first yield, and the rescan it asks for
    drops.tiny("after the name that is not UTF-8.txt", 10)
    wait_until(lambda: all_ended(env, len(drops.files)), timeout=60, message="a file found by events after it")
    assert watcher.process.poll() is None, watcher.output()
    assert watcher.stop() == 0, watcher.output()

    found = assert_each_file_ended_once(env, outbox, drops)
    assert_reports_written(outbox, found)
    by_name: dict[str, list[schema.IntakeFile]] = {}
    for r in found:
        by_name.setdefault(r.name, []).append(r)
    links = sorted(Path(r.outcome_path).name for r in by_name[long_link])
    assert links == ["L" * 236 + " (1).txt", "L" * 236 + ".txt"]
    assert "symbolic link" in by_name[long_link][0].reason
    failed = Path(by_name[failing][0].outcome_path)
    assert failed.parent == outbox / "failed" and len(error_file(failed).name.encode()) <= 255
    assert json.loads(error_file(failed).read_text())["file"] == failing
    assert by_name[undecodable][0].reason == UNDECODABLE_NAME
    assert Path(by_name[undecodable][0].outcome_path) == outbox / "failed" / "caf\\xff.txt"
    assert not list(inbox.iterdir())


@pytest.mark.services
def test_server_mode_with_worker_processes_and_the_watcher_killed_mid_run(
        server_env: dict[str, str], tmp_path: Path, watchers, start_worker) -> None:  # type: ignore[no-untyped-def]
    env = {**server_env, **FAST}
    inbox, outbox, sources = tmp_path / "inbox", tmp_path / "outbox", tmp_path / "sources"
    inbox.mkdir()
    cpu = start_worker(env, "cpu", 2)
    drops = Drops(inbox)
    watcher = watchers(env, inbox, outbox)
    first = drops.contract("contract 0.txt", 100, folder=sources)
    drops.copy(first, "contract 0.txt", PROCESSED)
    for i in range(1, 12):
        drops.contract(f"contract {i}.txt", 100 + i)
    for name in (b"caf\xff.txt", ("契" * 83 + "é.txt").encode(), b"line\nbreak.txt"):  # as PostgreSQL keeps them
        drops.hostile(name, "contract", len(name), sources)
    wait_until(lambda: count_rows(env, IntakeState.SUBMITTED) >= 1, timeout=60, message="files submitted")
    for pid in cpu.children():  # pool processes die mid-task: their tasks are requeued
        with_suppressed_lookup(os.kill, pid, signal.SIGKILL)
    watcher.kill()
    drops.copy(first, "again.txt", DUPLICATE)
    restarted = watchers(env, inbox, outbox)
    wait_until(lambda: all_ended(env, len(drops.files)), timeout=120, message="every file in its outbox folder")
    assert restarted.stop() == 0, restarted.output()
    found = assert_each_file_ended_once(env, outbox, drops)
    assert_reports_written(outbox, found)


BURST = 400
"""Files in the burst: so many that batches, claims and the rolling report all run many times
over while the watcher is killed and restarted (the kill comes after 100).  1,000 took four
minutes here and six in CI, a fifth of the whole suite."""


@pytest.mark.slow
def test_a_burst_of_hundreds_of_files_with_a_watcher_killed_mid_burst(
        embedded_env: dict[str, str], tmp_path: Path, watchers) -> None:  # type: ignore[no-untyped-def]
    """Among the first 200 files come the 20 HOSTILE_NAMES (255 bytes, not UTF-8, leading dashes,
    newlines, right-to-left overrides, links, FIFOs): each ends in its outbox folder like any
    other, and the watcher goes on.  (Early, so all are claimed before the kill: a name not UTF-8
    whose claim a kill cuts short keeps only the part of its storable name that fits NAME_MAX.)"""
    env = {**embedded_env, **FAST}
    inbox, outbox, outside = tmp_path / "inbox", tmp_path / "outbox", tmp_path / "outside.txt"
    inbox.mkdir()
    outside.write_text(tiny_contract(-1))
    drops = Drops(inbox)
    first = watchers(env, inbox, outbox)
    wait_until(lambda: first.cpu_worker() is not None, timeout=60, message="the watcher's workers")
    hostile = iter(HOSTILE_NAMES)
    for i in range(BURST):
        if i % 10 == 5 and (entry := next(hostile, None)):
            drops.hostile(*entry, BURST + i, outside)
        else:
            drops.tiny(f"contract {i:04d}.txt", i)
    wait_until(lambda: count_rows(env, PROCESSED) >= 100, timeout=240, message="the burst under way")
    first.kill()
    second = watchers(env, inbox, outbox)
    wait_until(lambda: all_ended(env, BURST), timeout=900, interval=1, message="the burst in the outbox")
    names = [escape(name) for name, _, state in drops.files if state is PROCESSED]
    wait_until(lambda: (outbox / "report.html").exists() and all(n in (outbox / "report.html").read_text() for n in names),
               timeout=60, message="the portfolio report over the whole burst")
    assert second.process.poll() is None, second.output()
    assert second.stop() == 0, second.output()
    found = assert_each_file_ended_once(env, outbox, drops)
    assert_reports_written(outbox, found)
    assert len(found) == BURST and Counter(r.state for r in found) == {PROCESSED: BURST - 8, FAILED: 8}
    assert not list(inbox.iterdir())
