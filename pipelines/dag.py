"""The document DAG as one table: each stage's name, queue, time limit, turn and whether it
stores its result.

This is the only place a stage's queue and time limit are written.  The Celery tasks are
registered from it (workers/tasks.py), the producer addresses tasks by the names it gives
(pipelines/producer.py), and metrics, the recovery sweep and ARCHITECTURE.md list stages in
its order.  It imports nothing from Celery, so a process that only reads results can use it.
How the stages connect is pipelines/producer.py's canvas.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Stage(StrEnum):
    """Where a document is, or where it failed; also the keys of its per-stage timings."""

    INGEST = "ingest"
    EXTRACT = "extract"
    OCR = "ocr"
    SEGMENT = "segment"
    ANALYSE_RULES = "analyse_rules"
    ANALYSE_MODEL = "analyse_model"
    AGGREGATE = "aggregate"
    PERSIST = "persist"


class Queue(StrEnum):
    """The worker roles: `cpu` (prefork, one process per core) and `gpu` (the model)."""

    CPU = "cpu"
    GPU = "gpu"


@dataclass(frozen=True)
class StageSpec:
    stage: Stage
    queue: Queue
    time_limit_setting: str
    """The Settings field holding the soft time limit (`Settings.time_limit_s(spec)` reads it);
    the hard limit adds HARD_LIMIT_GRACE_S."""
    stores_result: bool = False
    """Only chord members store a result: the OCR pages, joined before segmentation."""
    per_page: bool = False
    """One task per page (OCR): the pages record their own time, summed by `segment`."""
    analyser: str | None = None
    """For the parallel analysers, the producer name their findings are stored under."""
    task: str | None = None
    """The task name's last part, where it differs from the stage's name."""
    turn: int = 0
    """Which waiting task a worker takes first: the lowest turn (0-9; the message's priority,
    workers/celery_app.message_priority).  A document's later stages go before other documents'
    earlier ones, so each document flows through a batch and its results show as the batch
    runs; in first-in first-out order, every document of a 20,000-contract batch passed each
    stage before any passed the next, and the first ended near the end.  Ingest alone is last:
    RabbitMQ's quorum queues know two levels (0-4 and 5-9), so ingest is in one and the rest in
    the other, and a document's extraction never waits behind the batch's ingests.  Turns order
    the tasks of one queue: the model, alone on its queue, keeps 0, so its messages stay in the
    one Redis list a queue-length autoscaler reads (ops/k8s/base/autoscaling.yaml)."""
    doing: str = "working on this file"
    """What the stage does, for a person: "the worker crashed twice while {doing}"."""

    @property
    def task_name(self) -> str:
        """Routing is by this name's prefix (`clausemill.cpu.*` → the cpu queue)."""
        return f"clausemill.{self.queue}.{self.task or self.stage}"


STAGES: tuple[StageSpec, ...] = (
    StageSpec(Stage.INGEST, Queue.CPU, "ingest_time_limit_s", turn=9, doing="opening this file"),
    StageSpec(Stage.EXTRACT, Queue.CPU, "extract_time_limit_s", turn=4, doing="extracting the text of this file"),
    StageSpec(Stage.OCR, Queue.CPU, "ocr_page_time_limit_s", stores_result=True, per_page=True, task="ocr_page", turn=3,
              doing="reading a page of this file by OCR"),
    StageSpec(Stage.SEGMENT, Queue.CPU, "extract_time_limit_s", turn=3, doing="cutting this file into clauses"),
    StageSpec(Stage.ANALYSE_RULES, Queue.CPU, "analyse_time_limit_s", analyser="rules", turn=2,
              doing="applying the rules to this file"),
    StageSpec(Stage.ANALYSE_MODEL, Queue.GPU, "analyse_time_limit_s", analyser="model", turn=0,
              doing="running the model on this file"),
    StageSpec(Stage.AGGREGATE, Queue.CPU, "analyse_time_limit_s", turn=1, doing="assessing this file"),
    StageSpec(Stage.PERSIST, Queue.CPU, "ingest_time_limit_s", turn=0, doing="saving the results of this file"),
)
SPECS: dict[Stage, StageSpec] = {spec.stage: spec for spec in STAGES}


def analyser_stages(analysers: tuple[str, ...]) -> tuple[StageSpec, ...]:
    """The analyser stages for these producer names (Settings.analysers), in table order."""
    return tuple(spec for spec in STAGES if spec.analyser in analysers)


def next_stage(completed: frozenset[str] | set[str], analysers: tuple[str, ...]) -> Stage:
    """The first stage of the table a document has not completed: where it resumes.

    OCR is skipped: its pages record their own progress and `segment` records the stage, so
    a document between extraction and segmentation resumes at `segment` (which sends the
    pages still waiting for OCR first).  Analysers that are not enabled are skipped.
    """
    for spec in STAGES:
        if spec.per_page or (spec.analyser and spec.analyser not in analysers):
            continue
        if spec.stage not in completed:
            return spec.stage
    return Stage.PERSIST
