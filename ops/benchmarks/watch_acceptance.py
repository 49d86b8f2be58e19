"""Acceptance check of the drop folder on real contracts (a script, not a test).

`clausemill watch` in its embedded default (own workers, filesystem broker, SQLite, the model
on), 30 CUAD PDFs dropped while it runs (every fourth written slowly, in chunks with pauses
shorter than CLAUSEMILL_WATCH_STABLE_S), 2 duplicates (one dropped with its original, one after
it was audited), 3 broken files made by pipelines/samples/broken.py and 5 small contracts under
hostile names (255 bytes of UTF-8, a leading dash, a newline, a right-to-left override, and one
not UTF-8, which fails); the watcher is killed with SIGKILL midway and started again.  Then
every one of the 40 files must be in exactly one outbox folder with the right reason, and
`clausemill intake --json` must list each once.

    python ops/benchmarks/watch_acceptance.py [--n 30] [--keep DIR] [--timeout 1200]

Prints where each file ended and the checks; exits 1 when a check fails.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CUAD_PDFS = REPO.parent / "shared" / "data" / "cuad" / "pdf"
sys.path.insert(0, str(REPO))

SERVER_VARIABLES = ("CLAUSEMILL_BROKER_URL", "CLAUSEMILL_RESULT_BACKEND", "CLAUSEMILL_DATABASE_URL", "CLAUSEMILL_CONFIG")
BROKEN = ("truncated.pdf", "encrypted.pdf", "not-a-pdf.pdf")
HOSTILE = (("契" * 83 + "é.txt").encode(), b"-rf.txt", b"line\nbreak.txt", "invoice \u202etxt.exe".encode(),
           b"caf\xff.txt")
"""Names from pipelines/samples/hostile.py's HOSTILE_NAMES, each given a small contract."""


def pick_contracts(n: int) -> list[Path]:
    """A spread over the corpus (sorted by name, evenly spaced): short and long, text and scans."""
    files = sorted(p for p in CUAD_PDFS.iterdir() if p.suffix.lower() == ".pdf")
    return files[:: max(1, len(files) // n)][:n]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Run:
    def __init__(self, root: Path) -> None:
        self.root, self.inbox, self.outbox = root, root / "inbox", root / "outbox"
        self.inbox.mkdir(parents=True)
        self.data = root / "data"
        self.env = {k: v for k, v in os.environ.items() if k not in SERVER_VARIABLES}
        self.env.update(CLAUSEMILL_DATA_DIR=str(self.data), PYTHONPATH=str(REPO))
        self.dropped: dict[str, str] = {}  # name -> sha256 of what was dropped
        self.started = time.monotonic()
        self.log: list[str] = []

    def say(self, message: str) -> None:
        line = f"[{time.monotonic() - self.started:6.1f} s] {message}"
        self.log.append(line)
        print(line, flush=True)

    def watcher(self, label: str) -> subprocess.Popen[bytes]:
        out = open(self.root / f"watch-{label}.log", "ab")
        return subprocess.Popen([sys.executable, "-m", "pipelines.cli", "watch", str(self.inbox), "--out", str(self.outbox)],
                                env=self.env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def ledger_rows(self) -> list[tuple[str, str]]:
        database = self.data / "clausemill.sqlite"
        if not database.exists():
            return []
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30) as connection:
            try:
                return connection.execute("SELECT name, state FROM intake_files").fetchall()
            except sqlite3.OperationalError:  # not migrated yet
                return []

    def ended(self) -> int:
        return sum(1 for _, state in self.ledger_rows() if state in ("processed", "failed", "duplicate"))

    def drop(self, source: Path, name: str, slowly: bool = False) -> None:
        self.dropped[name] = sha256(source)
        if not slowly:
            shutil.copyfile(source, self.inbox / name)
            return
        data = source.read_bytes()
        with open(self.inbox / name, "wb") as out:
            for i in range(4):  # four chunks, 2 s apart: never quiet for the 5 s stability window
                out.write(data[i * len(data) // 4:(i + 1) * len(data) // 4])
                out.flush()
                if i < 3:
                    time.sleep(2.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=30, help="CUAD PDFs to drop")
    parser.add_argument("--keep", type=Path, help="run in this (new) folder and keep it")
    parser.add_argument("--timeout", type=float, default=1200, help="seconds to wait for every file")
    args = parser.parse_args()
    if not CUAD_PDFS.is_dir():
        print(f"CUAD PDFs not found at {CUAD_PDFS}", file=sys.stderr)
        return 2
    from pipelines.intake.rules import storable_name
    from pipelines.samples.broken import write_broken_samples
    from pipelines.samples.contracts import generate_contract
    from pipelines.samples.hostile import write_named_entry

    root = args.keep or Path(tempfile.mkdtemp(prefix="clausemill-watch-"))
    run = Run(root)
    contracts = pick_contracts(args.n)
    broken = root / "broken"
    broken.mkdir()
    write_broken_samples(broken)
    total = len(contracts) + 2 + len(BROKEN) + len(HOSTILE)

    first = run.watcher("1")
    run.say(f"watcher started (pid {first.pid}) on {run.inbox}; dropping {total} files while it runs")
    writers: list[threading.Thread] = []

    def drop_all() -> None:
        for i, pdf in enumerate(contracts):
            if i % 4 == 0:
                writers.append(threading.Thread(target=run.drop, args=(pdf, pdf.name, True)))
                writers[-1].start()
            else:
                run.drop(pdf, pdf.name)
            if i == 2:
                run.drop(contracts[1], f"copy of {contracts[1].name}")  # dropped with its original
            if i == 10:
                for name in BROKEN:
                    run.drop(broken / name, name)
            if i == 12:
                for n, name in enumerate(HOSTILE):
                    path = write_named_entry(run.inbox, name, "contract", generate_contract(900 + n, short=True).text,
                                             run.root)
                    run.dropped[storable_name(os.fsdecode(name))] = sha256(path)
            time.sleep(1.0)

    dropper = threading.Thread(target=drop_all)
    dropper.start()
    wait_for(lambda: run.ended() >= 8, 600, "8 files to end")
    first.kill()
    first.wait()
    run.say(f"watcher killed with SIGKILL after {run.ended()} files ended; "
            f"{len(run.ledger_rows()) - run.ended()} claimed and under way")
    time.sleep(3)  # files keep arriving while no watcher runs
    second = run.watcher("2")
    run.say(f"watcher started again (pid {second.pid})")
    dropper.join()
    for writer in writers:
        writer.join()
    audited = contracts[2].name
    wait_for(lambda: any(name == audited and state == "processed" for name, state in run.ledger_rows()), 600,
             f"{audited} to be processed")
    run.drop(contracts[2], f"late copy of {audited}")  # bytes already audited
    run.say("every file dropped; waiting for all to end")
    wait_for(lambda: run.ended() >= total, args.timeout, "every file to end", fail=False)
    run.say(f"{run.ended()} of {total} files ended")
    time.sleep(1)
    second.send_signal(signal.SIGTERM)
    code = second.wait(timeout=120)
    run.say(f"watcher stopped with SIGTERM, exit code {code}")
    survivors = _kill_leftovers(run.data)
    if survivors:
        run.say(f"{survivors} embedded worker process(es) of the killed watcher outlived it; killed now")
    failures = check(run, contracts, total, code)
    print("\nRESULT: " + ("all checks passed" if not failures else f"{len(failures)} check(s) failed"))
    for failure in failures:
        print(f"  FAILED: {failure}")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if failures else 0


def check(run: Run, contracts: list[Path], total: int, exit_code: int) -> list[str]:
    from pipelines.intake.rules import ERROR_SUFFIX, OUTCOME_FOLDERS, UNDECODABLE_NAME, name_refusal, storable_name

    failures: list[str] = []
    listed = subprocess.run([sys.executable, "-m", "pipelines.cli", "intake", "--json"], env=run.env, cwd=REPO,
                            capture_output=True, text=True, check=True)
    entries = json.loads(listed.stdout)
    print(f"\n{'file':<75} {'ended in':<30} reason")
    for entry in entries:
        where = str(Path(entry["outcome"]).relative_to(run.outbox).parent) if entry["outcome"] else "-"
        # repr: a newline or a right-to-left override in a name is shown, not obeyed
        print(f"{entry['file']!r:<75.74} {where:<30} {entry['reason'] or ''}")
    counts = Counter(entry["file"] for entry in entries)
    if exit_code != 0:
        failures.append(f"the watcher exited {exit_code} on SIGTERM")
    if len(entries) != total or set(counts) != set(run.dropped) or max(counts.values()) != 1:
        failures.append(f"intake --json lists {len(entries)} rows for {len(counts)} names; expected {total} once each")
    expected = {pdf.name: "processed" for pdf in contracts} | {name: "failed" for name in BROKEN}
    expected |= {name: "duplicate" for name in run.dropped if name.startswith(("copy of ", "late copy of "))}
    refused = {storable_name(name) for name in map(os.fsdecode, HOSTILE) if name_refusal(name)}
    expected |= {storable_name(os.fsdecode(name)): "processed" for name in HOSTILE} | dict.fromkeys(refused, "failed")
    for entry in entries:
        if entry["state"] != expected.get(entry["file"]):
            failures.append(f"{entry['file']}: {entry['state']} ({entry['reason']}), expected {expected.get(entry['file'])}")
        outcome = Path(entry["outcome"] or "/nonexistent")
        if not outcome.is_file() or sha256(outcome) != run.dropped.get(entry["file"]):
            failures.append(f"{entry['file']}: not at {outcome} with the bytes dropped")
            continue
        if entry["state"] != "processed":
            record = json.loads(outcome.with_name(outcome.name + ERROR_SUFFIX).read_text())
            if not (record["reason"] and record["stage"] and record["time"]) or record["file"] != entry["file"]:
                failures.append(f"{entry['file']}: error file without its name, stage, reason or time: {record}")
            if entry["file"] in refused and entry["reason"] != UNDECODABLE_NAME:
                failures.append(f"{entry['file']}: failed for {entry['reason']!r}, not for its name")
            if entry["state"] == "duplicate" and sha256(Path(record["original"]["outcome"])) != sha256(outcome):
                failures.append(f"{entry['file']}: its error file names {record['original']['file']}, not the same bytes")
    in_outbox = [p for folder in OUTCOME_FOLDERS.values() for p in (run.outbox / folder).rglob("*")
                 if p.is_file() and not p.name.endswith(ERROR_SUFFIX)]
    if len(in_outbox) != total:
        failures.append(f"{len(in_outbox)} files in the outbox folders, expected {total}")
    if any(p.is_file() for p in (run.outbox / ".work").rglob("*")) or any(p.is_file() for p in run.inbox.rglob("*")):
        failures.append("files left in the inbox or the work folder")
    with sqlite3.connect(run.data / "clausemill.sqlite") as connection:
        twice = connection.execute("SELECT sha256, COUNT(*) FROM documents WHERE status = 'done' GROUP BY sha256 "
                                   "HAVING COUNT(*) > 1").fetchall()
        resent = connection.execute("SELECT COUNT(*) FROM recoveries").fetchone()[0]
    if twice:
        failures.append(f"bytes audited twice: {twice}")
    batches = {entry["batch"] for entry in entries if entry["batch"]}
    missing = [b for b in batches if not (run.outbox / "reports" / b / "report.html").exists()]
    if missing or not (run.outbox / "report.html").exists() or not (run.outbox / "report.xlsx").exists():
        failures.append(f"reports missing: batches {missing}, portfolio {(run.outbox / 'report.html').exists()}")
    states = Counter(entry["state"] for entry in entries)
    print(f"\n{dict(states)} in {len(batches)} batches; {resent} document(s) re-sent after the kill; "
          f"{time.monotonic() - run.started:.0f} s in all")
    return failures


def wait_for(predicate, timeout: float, what: str, fail: bool = True) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            if fail:
                raise SystemExit(f"gave up after {timeout:.0f} s waiting for {what}")
            return
        time.sleep(0.5)


def _kill_leftovers(data_dir: Path) -> int:
    """Embedded workers whose watcher was killed with SIGKILL keep running (their own sessions)."""
    killed = 0
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if f"CLAUSEMILL_DATA_DIR={data_dir}".encode() in environ.read_bytes().split(b"\0"):
                os.kill(int(environ.parent.name), signal.SIGKILL)
                killed += 1
        except (OSError, ProcessLookupError):
            continue
    return killed


if __name__ == "__main__":
    sys.exit(main())
