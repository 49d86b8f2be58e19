"""`clausemill worker ...`, whose pool processes SIGKILL themselves in each stage in turn.

The first task of each stage kills the process running it as it starts (nothing done yet,
its message unacknowledged: tests that nothing is lost), and the next kills it as it ends
(every write made and the next stage sent, the ack not yet: tests that nothing is done
twice).  A marker file per (task, moment) in $CLAUSEMILL_TEST_CRASH_MARKS makes each kill
happen once across the pool's processes.  The kills are real: the worker's main process
sees a pool process die mid-task, as it would after the OOM killer or a segfault.

Run as `python tests/crash_each_stage.py worker --queues cpu`; the arguments are the CLI's.
"""
from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

from celery.signals import task_postrun, task_prerun

MARKS = Path(os.environ["CLAUSEMILL_TEST_CRASH_MARKS"])


def _die_once(moment: str, task_name: str) -> None:
    try:
        os.close(os.open(MARKS / f"{task_name}.{moment}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return
    os.kill(os.getpid(), signal.SIGKILL)


@task_prerun.connect
def _at_start(sender: Any = None, **_: Any) -> None:
    _die_once("start", sender.name)


@task_postrun.connect
def _at_end(sender: Any = None, **_: Any) -> None:
    _die_once("end", sender.name)


if __name__ == "__main__":
    from pipelines.cli import app

    app(prog_name="clausemill")
