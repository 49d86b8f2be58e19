"""The engine's shape, which new surfaces (watcher, scheduler, metrics, web app) build on:
one stage table, no work at import time, no import cycles."""
from __future__ import annotations

import ast
import json
import re
import socket
import subprocess
import sys
from pathlib import Path

from conftest import REPO, base_env
from pipelines.dag import SPECS, STAGES, Queue, Stage
from pipelines.settings import HARD_LIMIT_GRACE_S, Settings
from workers.celery_app import create_app

PACKAGES = ("pipelines", "workers", "storage", "models", "web")


def test_every_stage_is_a_task_with_the_tables_queue_and_the_settings_limits(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, ocr_page_time_limit_s=77, analyse_time_limit_s=500)
    app = create_app(settings)
    for spec in STAGES:
        task = app.tasks[spec.task_name]
        assert app.amqp.router.route({}, spec.task_name)["queue"].name == spec.queue
        assert task.soft_time_limit == settings.time_limit_s(spec)
        assert task.time_limit == settings.time_limit_s(spec) + HARD_LIMIT_GRACE_S
        assert task.ignore_result is not spec.stores_result
    assert app.tasks[SPECS[Stage.OCR].task_name].soft_time_limit == 77
    assert app.tasks[SPECS[Stage.ANALYSE_MODEL].task_name].soft_time_limit == 500
    assert SPECS[Stage.ANALYSE_MODEL].queue is Queue.GPU


def test_task_names_are_written_only_in_the_stage_table() -> None:
    written = re.compile(r"""["']clausemill\.(cpu|gpu)\.""")
    offenders = [
        str(path.relative_to(REPO)) for package in PACKAGES for path in (REPO / package).rglob("*.py")
        if path.name != "dag.py" and written.search(path.read_text())
    ]
    assert offenders == []


def test_architecture_doc_shows_the_stage_table_in_order() -> None:
    text = (REPO / "ARCHITECTURE.md").read_text()
    rows = re.findall(r"^\| (\w+) \| (cpu|gpu) \| (\d+) s \(`(\w+)`\) \| (\d) \|", text, flags=re.MULTILINE)
    defaults = Settings()
    assert rows == [(spec.stage, spec.queue, str(defaults.time_limit_s(spec)), spec.time_limit_setting, str(spec.turn))
                    for spec in STAGES]


READ_RESULTS_WITHOUT_A_BROKER = """
import json, sys
import celery._state
from pathlib import Path
import pipelines.producer, storage.repository
from storage.database import session_scope
from storage import repository
from pipelines.settings import get_settings

settings = get_settings()
with session_scope(settings.effective_database_url) as session:
    repository.create_batch(session, "b", [Path("/contracts/a.pdf")], {})
with session_scope(settings.effective_database_url, write=False) as session:
    batch = repository.load_batch_result(session, "b")
print(json.dumps({"documents": len(batch.documents), "status": batch.status,
                  "celery_apps": len(celery._state._apps),
                  "workers_imported": sorted(m for m in sys.modules if m.startswith("workers"))}))
"""


def test_reading_results_in_server_mode_never_touches_the_broker(tmp_path: Path) -> None:
    with socket.socket() as broker:  # a "broker" that records whoever connects
        broker.bind(("127.0.0.1", 0))
        broker.listen()
        broker.settimeout(0.5)
        url = f"redis://127.0.0.1:{broker.getsockname()[1]}/0"
        env = base_env(tmp_path / "data")
        env.update(CLAUSEMILL_BROKER_URL=url, CLAUSEMILL_RESULT_BACKEND=url,
                   CLAUSEMILL_DATABASE_URL=f"sqlite:///{tmp_path / 'results.sqlite'}")
        done = subprocess.run([sys.executable, "-c", READ_RESULTS_WITHOUT_A_BROKER], env=env, cwd=REPO,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        try:
            connection, _ = broker.accept()
        except TimeoutError:
            connection = None
    assert connection is None, "importing the engine to read results connected to the broker"
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"documents": 1, "status": "running", "celery_apps": 0, "workers_imported": []}


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """Project modules `path` imports, at module level, inside functions or for type checking
    only (a circle that only the type checker sees is still a circle a reader has to untie)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from package import module` depends on the module; `from module import name`
            # on the module.
            names = [f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in modules else node.module
                     for alias in node.names]
        else:
            continue
        found |= {name for name in names if name in modules}
    return found


def import_graph() -> dict[str, set[str]]:
    paths = [path for package in PACKAGES for path in (REPO / package).rglob("*.py") if "migrations" not in path.parts]
    modules = {_module_of(path) for path in paths}
    return {_module_of(path): _imports(path, modules) - {_module_of(path)} for path in paths}


def test_no_module_imports_itself_back() -> None:
    graph = import_graph()
    cycles = []
    for start in graph:  # a depth-first walk from each module back to itself
        stack, seen = [(start, [start])], set()
        while stack:
            module, trail = stack.pop()
            for imported in graph.get(module, ()):
                if imported == start:
                    cycles.append(" -> ".join([*trail, start]))
                elif imported not in seen:
                    seen.add(imported)
                    stack.append((imported, [*trail, imported]))
    assert cycles == []


LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core values and settings", (
        "pipelines", "pipelines.settings", "pipelines.dag", "pipelines.datamodel", "pipelines.assessment",
        "pipelines.categories", "pipelines.category_descriptions", "pipelines.logs", "pipelines.inputs",
        "pipelines.utc", "pipelines.liveness", "pipelines.nightly.cron")),
    ("the pure domain", (
        "pipelines.parsers", "pipelines.stages", "pipelines.rules", "pipelines.terms", "pipelines.contract_type",
        "pipelines.sides", "pipelines.playbook", "pipelines.aggregate", "pipelines.review", "pipelines.deadlines",
        "pipelines.nightly.deltas", "pipelines.nightly.webhook", "pipelines.reports", "pipelines.samples",
        "pipelines.intake.rules", "pipelines.clause_types")),
    ("storage and the model runtime", ("storage", "models")),
    ("the engine and the review services", (
        "pipelines.steps", "pipelines.producer", "pipelines.reported", "pipelines.nightly.incremental",
        "pipelines.review.queue", "pipelines.review.assignment", "pipelines.review.agreement",
        "pipelines.review.export", "pipelines.review.listing", "pipelines.review.item_view", "pipelines.review.users",
        "pipelines.review.calendar_tokens", "pipelines.clause_types.teaching")),
    ("Celery glue", ("workers",)),
    ("the processes that bring work in and keep it going", ("pipelines.intake", "pipelines.nightly", "workers.metrics")),
    ("the web app and the CLI", ("web", "pipelines.cli")),
)
"""Floors, bottom to top: a module sits on the floor of the longest prefix that names it, and
imports only from its own floor or below.  A new module must be placed here."""


def floor_of(module: str) -> int | None:
    placed = [(len(prefix), floor) for floor, (_, prefixes) in enumerate(LAYERS) for prefix in prefixes
              if module == prefix or module.startswith(prefix + ".")]
    return max(placed)[1] if placed else None


def test_every_module_imports_only_from_its_floor_or_below() -> None:
    graph = import_graph()
    unplaced = sorted(module for module in graph if floor_of(module) is None)
    upward = sorted(f"{module} ({LAYERS[floor_of(module)][0]}) imports {imported} ({LAYERS[floor_of(imported)][0]})"
                    for module, imports in graph.items() if module not in unplaced
                    for imported in imports if (floor_of(imported) or 0) > floor_of(module))
    assert unplaced == [] and upward == []
