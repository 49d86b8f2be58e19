"""All configuration, in one object.

Read from `CLAUSEMILL_*` environment variables, then from `clausemill.toml` in the working
directory (or the file named by `CLAUSEMILL_CONFIG`).  With nothing set, clausemill runs
embedded: Celery over kombu's filesystem transport and SQLite under `data_dir`, so
`clausemill audit DIR` needs no server.
"""
from __future__ import annotations

import ipaddress
import os
from datetime import timedelta
from functools import lru_cache
from pathlib import Path

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource

from pipelines.dag import STAGES, StageSpec


def _default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "clausemill"


def cores() -> int:
    """CPUs this process may use (a container's quota shows in its affinity, not in cpu_count):
    the embedded launcher sizes the gpu role by it, and the model its torch threads."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _entries(value: str) -> list[str]:
    """The non-blank entries of a comma-separated setting."""
    return [entry.strip() for entry in value.split(",") if entry.strip()]


HARD_LIMIT_GRACE_S = 10
"""A task's hard time limit is its soft limit plus this: time to record the document `failed`."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CLAUSEMILL_", extra="ignore")

    # Where things run.  Empty URLs mean "embedded": derived from data_dir below.
    data_dir: Path = Field(default_factory=_default_data_dir)
    broker_url: str = ""
    result_backend: str = ""
    database_url: str = ""
    visibility_timeout_s: int = 3600  # Redis: an unacked task is redelivered after this long

    # Worker sizing.  A gpu-role process runs one model; its threads are documents in flight,
    # whose segments share model batches (workers/model_batcher.py).
    cpu_concurrency: int = Field(default_factory=lambda: os.cpu_count() or 1)
    gpu_concurrency: int = 8
    # gpu-role processes the embedded launcher starts (workers/lifecycle.py), and the torch threads
    # each uses.  0 means: with no GPU driver on the machine, one process per core (at most 4),
    # sharing the cores' threads; with one, a single process.  On a CPU one process with every
    # core's threads leaves cores idle: a fifth of its time is Python (the experts, the findings,
    # its task threads' database work) under the GIL, and two-thread kernels on one document's
    # small batches scale poorly (docs/BENCHMARKS.md).  model_threads 0: all cores.
    model_processes: int = Field(default=0, ge=0)
    model_threads: int = Field(default=0, ge=0)
    # A cpu pool process is replaced after a task that left it above this resident memory
    # (parsers run in their own children, so this catches slow growth: caches, fragmentation),
    # and after this many tasks; 0 turns either off.  docs/OPERATIONS.md has the whole-worker cap.
    worker_max_memory_mb: int = Field(default=1024, ge=0)
    worker_max_tasks: int = Field(default=500, ge=0)

    # The expert model (models/): off for cpu-only fleets, or to audit with rules alone.
    model_enabled: bool = True
    model_checkpoint: Path | None = None  # default: the checkpoint shipped in models/checkpoint/
    # On a CPU, run the backbone's linear layers in int8 (~2x faster; accuracy cost in
    # MODEL_CARD.md).  CUDA always runs fp16.
    model_int8: bool = True
    ocr_dpi: int = 300
    ocr_language: str = "eng"

    # Limits a document must respect; over them it ends `failed`, not the batch.
    max_file_mb: float = 200.0
    max_pages: int = 2000
    # Reading untrusted files (pipelines/parsers/limits.py, sandbox.py; docs/RELIABILITY.md):
    # each parse runs in a child process allowed this much more address space, for its stage's
    # time limit less parse_time_margin_s (the margin lets the stage record why); a page drawn
    # for OCR, a .docx unpacked, a document's text and segments are capped before the work.
    parse_memory_limit_mb: int = Field(default=1536, ge=64)
    parse_time_margin_s: int = Field(default=10, ge=1)
    max_page_megapixels: float = Field(default=100.0, gt=0)  # A1 at 300 dpi is 70; A0 is 139
    # An image inside a page is decoded whole before it is scaled: a letter page scanned at
    # 1,200 dpi is 135 megapixels, an A3 one 280; a 40,000-pixel square 1,600.
    max_image_megapixels: float = Field(default=300.0, gt=0)
    max_docx_uncompressed_mb: float = Field(default=256.0, gt=0)
    max_docx_entries: int = Field(default=5000, gt=0)
    max_document_chars: int = Field(default=5_000_000, gt=0)
    max_segments: int = Field(default=50_000, gt=0)

    # Soft time limits in seconds, per kind of task (pipelines/dag.py says which stage uses
    # which); the hard limit adds HARD_LIMIT_GRACE_S.
    ingest_time_limit_s: int = 120
    extract_time_limit_s: int = 600
    ocr_page_time_limit_s: int = 300
    analyse_time_limit_s: int = 900
    infrastructure_retries: int = 5
    # A task whose deliveries killed their worker (out of memory, a segfault, the hard time
    # limit) this many times ends its document `failed` instead of being delivered forever.
    max_worker_crashes: int = Field(default=2, ge=1)

    # The recovery sweep (workers/recovery.py).  A task writes a heartbeat on its document
    # every heartbeat_interval_s while it runs; a document with no message in the broker that
    # has neither moved nor beaten for three heartbeats plus recovery_margin_s (45 s by default)
    # is taken for lost and sent again from its last completed stage, at most
    # recovery_max_attempts times in all.  Sweeps run every recovery_interval_s, and once more
    # when a server worker reconnects to the broker.
    heartbeat_interval_s: float = Field(default=10.0, gt=0)
    recovery_margin_s: int = Field(default=15, ge=0)
    recovery_max_attempts: int = 3
    recovery_interval_s: float = Field(default=15.0, gt=0)
    # With more messages than this queued, a sweep lists none of them and leaves every quiet
    # document alone until the queues are shorter: a long queue is the work left, and listing
    # 20,000 messages (and reading as many quiet documents) took 1.4 s of a worker's event loop
    # at every sweep.  A message lost meanwhile is found when the queues come under it.
    recovery_list_limit: int = Field(default=1000, ge=0)

    # The drop folder (`clausemill watch`): a full rescan besides file-system events, files
    # taken once their size and mtime are stable, grouped into batches of files arriving close
    # together (flushed after the window or at the size).
    watch_rescan_s: float = 60.0
    watch_stable_s: float = 5.0
    watch_batch_window_s: float = 3.0
    watch_batch_max_files: int = 50

    # Nightly audits (`clausemill nightly`, `clausemill scheduler`): a crontab(5) schedule in
    # `timezone`, over nightly_paths (separated by os.pathsep, like PATH); webhook_url, when
    # set, gets a JSON summary of each run.
    nightly_cron: str = "0 2 * * *"
    timezone: str = "UTC"
    nightly_paths: str = ""
    webhook_url: str = ""
    webhook_timeout_s: float = 10.0
    webhook_retries: int = 3

    # Who "we" are in the contracts, as they name us ("Acme Inc.;Acme Europe GmbH"): the
    # report shows our role, and restraints that bind only the other side raise no issue.
    # `--party` outranks it, and it outranks the playbook's `we:`.
    our_party: str = ""

    # The review budget (pipelines/review/budget.py): the most urgent items kept per contract,
    # and the share of confident findings sent to review at random (an unbiased sample).
    review_items_per_contract: int = Field(default=5, ge=0)
    review_sample_rate: float = Field(default=0.02, ge=0.0, le=1.0)
    # A contract's business stakes in its items' priority (`--tier`, `--register`): each
    # tier's weight (JSON in the environment: '{"standard": 1, "vip": 3}'), and the value
    # above which a contract's value starts to count (1 + log10(value / reference)).
    review_tiers: dict[str, float] = Field(default_factory=lambda: {"standard": 1.0, "important": 2.0,
                                                                    "critical": 4.0})
    review_value_reference: float = Field(default=100_000.0, gt=0)

    # Monitoring: Flower's basic auth ("user:password", comma-separated for several; from the
    # environment or clausemill.toml, never the repository) and the metrics endpoint's port.
    flower_basic_auth: str = ""
    metrics_port: int = 9808

    # Embedded mode polls files: the broker folder for messages (each task hop waits up to one
    # interval; measured on 40 contracts, 2 cores: 0.1 s cost ~39% of wall time, 0.02 s ~13%,
    # 0.005 s ~8%; an idle poll is one listdir; a worker with no message for a second polls at
    # the idle interval), and the result database for chord joins.
    broker_poll_interval_s: float = 0.005
    broker_idle_poll_interval_s: float = 0.1
    chord_poll_interval_s: float = 0.1

    # The reviewers' web app (`clausemill serve`).  Its session cookie is signed with
    # secret_key, or with the contents of secret_key_file; with neither, one is generated once
    # into data_dir/secret_key (web/secret_key.py), so the embedded mode needs no setup.  Set
    # secure_cookies when the app is served over https.  A user+address pair gets
    # login_max_failures wrong passwords per login_window_s; a claimed item is leased for
    # review_lease_s, renewed while the reviewer works on it.
    secret_key: SecretStr = SecretStr("")
    secret_key_file: Path | None = None
    session_lifetime_s: int = Field(default=8 * 3600, gt=0)
    secure_cookies: bool = False
    login_max_failures: int = Field(default=5, gt=0)
    login_window_s: int = Field(default=300, gt=0)
    review_lease_s: int = Field(default=900, gt=0)
    # What the review app believes and accepts (web/auth.py, pipelines/review/users.py).  trusted_proxies:
    # the addresses or networks ("10.0.0.5,192.168.1.0/24") of reverse proxies whose
    # X-Forwarded-For/-Proto are believed; with none, nobody's are, since a forged one would give
    # each guess a fresh login throttle.  max_request_bytes: the largest request body, refused
    # (413) before it is read: the largest form or /api body is an assignment of 1,000 ids
    # (about 10 KB) or a decision's comment, and 1 MiB is also the most one form field may hold
    # (Starlette's limit).  password_min_length: a new user's (and Flower's) password, in characters;
    # NIST SP 800-63B-4 requires 15 where the password is the only factor, as here, and length
    # is its one rule (no demands for digits or symbols).
    trusted_proxies: str = ""
    max_request_bytes: int = Field(default=1024 * 1024, gt=0)
    password_min_length: int = Field(default=15, ge=1)
    # Uploads in the review app (web/routes/upload.py): files a user sends go into upload_inbox,
    # the inbox a `clausemill watch` watches, under uploads/USER/, so they enter the same intake
    # ledger as dropped files; unset, the upload page says how to turn it on.  upload_max_mb:
    # one request's files together (the only route allowed more than max_request_bytes).
    upload_inbox: Path | None = None
    upload_max_mb: float = Field(default=500.0, gt=0)
    # Retention (storage/retention.py, `clausemill prune`): the newest keep_runs batches of each
    # kind (nightly runs, audits, watcher batches) keep every detail; in older ones a superseded
    # audit keeps its record and results but loses its page text, segments and findings rows,
    # and older nightly runs lose their report folders.  Each nightly run applies it when it
    # ends; 0 keeps everything.
    keep_runs: int = Field(default=30, ge=0)

    @model_validator(mode="after")
    def _redelivery_waits_for_the_longest_task(self) -> Settings:
        """Redis redelivers a task unacknowledged for visibility_timeout_s: were that shorter than
        a task may run, a slow task would run twice at once, and its first worker would stall."""
        longest = max(self.time_limit_s(spec) for spec in STAGES) + HARD_LIMIT_GRACE_S
        if self.visibility_timeout_s <= longest:
            raise ValueError(f"visibility_timeout_s ({self.visibility_timeout_s}) must exceed the longest task "
                             f"time limit ({longest} s), or Redis would redeliver tasks that are still running")
        return self

    @property
    def stall_after(self) -> timedelta:
        """How long a document with no message in the broker may go without moving or a
        heartbeat before the recovery sweep takes it for lost: three missed beats and the margin."""
        return timedelta(seconds=3 * self.heartbeat_interval_s + self.recovery_margin_s)

    def time_limit_s(self, spec: StageSpec) -> int:
        """A stage's soft time limit: the field its row of the stage table names."""
        return int(getattr(self, spec.time_limit_setting))

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies_are_addresses(cls, value: str) -> str:
        for entry in _entries(value):
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(f"trusted_proxies lists IP addresses or networks separated by commas "
                                 f"(10.0.0.5,192.168.1.0/24), not {entry!r}") from None
        return value

    @property
    def trusted_proxy_list(self) -> list[str]:
        return _entries(self.trusted_proxies)

    @property
    def our_parties(self) -> tuple[str, ...]:
        return tuple(n.strip() for n in self.our_party.split(";") if n.strip())

    @property
    def analysers(self) -> tuple[str, ...]:
        """Analysers that run in parallel on each segmented document; aggregation merges them."""
        return ("rules", "model") if self.model_enabled else ("rules",)

    @property
    def embedded(self) -> bool:
        return not self.broker_url

    @property
    def effective_broker_url(self) -> str:
        return self.broker_url or "clausemillfs://"  # workers/filesystem_broker.py

    @property
    def rabbitmq(self) -> bool:
        """The broker is RabbitMQ (AMQP): quorum queues, acknowledgements instead of a visibility timeout."""
        return self.broker_url.startswith(("amqp://", "amqps://", "pyamqp://"))

    @property
    def effective_result_backend(self) -> str:
        """Only the OCR chords store results.  In server mode with no backend named, the database
        holds them (Celery's SQLAlchemy backend), which every host reaches; a file beside one
        host's data folder would join no chord run on another."""
        if self.result_backend:
            return self.result_backend
        if not self.embedded and self.database_url:
            return f"db+{self.database_url}"
        return f"db+sqlite:///{self.data_dir / 'celery-results.sqlite'}"

    @property
    def effective_database_url(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir / 'clausemill.sqlite'}"

    @property
    def broker_folder(self) -> Path:
        return self.data_dir / "broker"

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml_file = Path(os.environ.get("CLAUSEMILL_CONFIG", "clausemill.toml"))
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls, toml_file=toml_file))


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
