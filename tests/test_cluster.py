"""The cluster as shipped: docker-compose.yml (checked as far as this machine can, with no
Docker engine) and ops/cluster.sh, its native twin, run for real on Redis + PostgreSQL."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from conftest import REPO, free_port, wait_until
from pipelines.cli import app as cli

COMPOSE = yaml.safe_load((REPO / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
OURS = {name: s for name, s in SERVICES.items() if "build" in s}


def cli_commands() -> set[str]:
    return {command.name or command.callback.__name__ for command in cli.registered_commands}


def test_every_clausemill_service_runs_a_command_the_cli_has() -> None:
    assert set(OURS) >= {"migrate", "cpu-worker", "gpu-worker", "scheduler", "watcher", "flower", "review", "metrics"}
    assert {name: s["command"][0] for name, s in OURS.items() if s["command"][0] not in cli_commands()} == {}


def test_every_long_running_service_has_a_healthcheck_and_waits_for_the_migration() -> None:
    for name, service in SERVICES.items():
        if name == "migrate":
            continue
        assert "healthcheck" in service, name
        if name in OURS:
            assert service["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}, name


def test_the_scheduler_and_the_watcher_are_checked_by_their_heartbeat() -> None:
    """`kill -0 1` says only that PID 1 exists; `clausemill health` that its main loop still turns
    (tests/test_health.py runs it against the real processes)."""
    for name in ("scheduler", "watcher"):
        assert SERVICES[name]["healthcheck"]["test"] == ["CMD", "clausemill", "health", name], name
    assert [name for name, s in SERVICES.items() if "kill -0" in str(s.get("healthcheck"))] == []
    assert "health" in cli_commands()
    assert all(s["environment"]["CLAUSEMILL_DATA_DIR"] for s in OURS.values())  # where the heartbeats are


def test_the_file_holds_no_secret() -> None:
    """Passwords and credentials only as ${…} from .env, in variables and in URLs alike."""
    secret_names = ("PASSWORD", "BASIC_AUTH", "SECRET", "TOKEN")
    for name, service in SERVICES.items():
        for key, value in (service.get("environment") or {}).items():
            if any(word in key for word in secret_names):
                assert str(value).startswith("${"), (name, key)
            assert not re.search(r"://[^:/@]+:(?!\$\{)[^@]+@", str(value)), (name, key, "a password written into a URL")


@pytest.mark.skipif(not shutil.which("docker") or subprocess.run(["docker", "compose", "version"], capture_output=True).returncode,
                    reason="the docker compose plugin is not installed here (no Docker engine on this machine)")
def test_docker_compose_accepts_the_file(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text((REPO / "ops" / "compose.env.example").read_text())
    done = subprocess.run(["docker", "compose", "--env-file", str(env), "-f", str(REPO / "docker-compose.yml"), "config", "-q"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(not shutil.which("docker-compose"),
                    reason="docker-compose is not installed (Debian's package; ops/install-system-deps.sh --test installs it)")
def test_docker_compose_config_accepts_the_file(tmp_path: Path) -> None:
    """A real `docker-compose config` (1.29, no engine needed): the file's schema, its anchors and
    its ${…} variables from the env file a new install copies.  Without the passwords it refuses."""
    def config(env_file: str) -> subprocess.CompletedProcess[str]:
        env = tmp_path / ".env"
        env.write_text(env_file)
        environ = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUSEMILL_", "POSTGRES_"))}
        return subprocess.run(["docker-compose", "--env-file", str(env), "-f", str(REPO / "docker-compose.yml"),
                               "config", "--quiet"], capture_output=True, text=True, cwd=tmp_path, env=environ, timeout=120)

    example = (REPO / "ops" / "compose.env.example").read_text()
    done = config(example)
    assert done.returncode == 0, done.stderr
    refused = config(re.sub(r"(?m)^POSTGRES_PASSWORD=.*$", "", example))
    assert refused.returncode != 0 and "set POSTGRES_PASSWORD in .env" in refused.stderr, refused.stderr


def test_ops_cluster_sh_runs_the_cluster_natively(server_env: dict[str, str], tmp_path: Path) -> None:
    """Every process of the cluster comes up on Redis + PostgreSQL, a dropped contract is audited
    through it, and SIGTERM takes all of them down."""
    from test_monitoring import get
    from test_dag_embedded import processes_using

    logs = tmp_path / "logs"
    flower_port, metrics_port = free_port(), free_port()
    env = {**server_env, "CLAUSEMILL_FLOWER_BASIC_AUTH": "ops:cluster-test-secret", "FLOWER_PORT": str(flower_port),
           "METRICS_PORT": str(metrics_port), "CLAUSEMILL_CLUSTER_LOGS": str(logs), "CLAUSEMILL_WATCH_STABLE_S": "1",
           "CLAUSEMILL": str(Path(sys.executable).with_name("clausemill")), "CLAUSEMILL_DATA_DIR": str(tmp_path / "data"),
           "CLAUSEMILL_NIGHTLY_PATHS": str(tmp_path / "repository")}
    (tmp_path / "repository").mkdir()
    inbox, outbox = tmp_path / "inbox", tmp_path / "outbox"
    cluster = subprocess.Popen(["bash", str(REPO / "ops" / "cluster.sh"), str(inbox), str(outbox)], env=env, cwd=REPO,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        def workers_online() -> bool:
            try:
                status, body = get(f"http://127.0.0.1:{metrics_port}/metrics")
            except OSError:
                return False
            return status == 200 and all(f'clausemill_workers_online{{queue="{q}"}} 1.0' in body for q in ("cpu", "gpu"))

        wait_until(workers_online, timeout=120, message="both workers online in /metrics")
        assert get(f"http://127.0.0.1:{flower_port}/api/workers")[0] == 401
        assert get(f"http://127.0.0.1:{flower_port}/api/workers", auth=("ops", "cluster-test-secret"))[0] == 200
        (inbox / "supply agreement.txt").write_text(
            "SUPPLY AGREEMENT\n\nThis Agreement is governed by the laws of the State of New York.\n\n"
            "Neither party may assign this Agreement without the prior written consent of the other party.\n")
        wait_until(lambda: list((outbox / "processed").rglob("supply agreement.txt")), timeout=120,
                   message="the dropped contract to be processed")
    finally:
        os.killpg(cluster.pid, signal.SIGTERM)
        try:
            output = cluster.communicate(timeout=90)[0].decode()
        except subprocess.TimeoutExpired as error:
            held = still_running((error.output or b"").decode(errors="replace"))
            for name, pid in held.items():
                if name.endswith("worker") or name == "scheduler":
                    os.kill(pid, signal.SIGUSR1)  # Celery's handler logs every thread's stack
            time.sleep(2)
            os.killpg(cluster.pid, signal.SIGKILL)  # no leftover process may disturb the tests after this one
            cluster.communicate()
            pytest.fail(f"{', '.join(held) or 'a cluster process'} outlived SIGTERM by 90 s; the logs:\n" + "\n".join(
                f"--- {log.name}\n{log.read_text(errors='replace')[-4000:]}"
                for log in sorted(logs.glob("*.log"), key=lambda log: (log.stem not in held, log.name))))
    assert cluster.returncode == 143, output
    assert processes_using(env["CLAUSEMILL_DATA_DIR"]) == [], "a cluster process outlived the script"


def still_running(started: str) -> dict[str, int]:
    """The processes cluster.sh announced ("cpu-worker: pid 123 (...)") that have not exited."""
    def alive(pid: int) -> bool:
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except (OSError, IndexError):
            return False
    announced = {name: int(pid) for name, pid in re.findall(r"(?m)^([a-z-]+): pid (\d+) ", started)}
    return {name: pid for name, pid in announced.items() if alive(pid)}


def test_nothing_it_publishes_answers_without_credentials() -> None:
    """Flower needs its basic auth and the review app its signed sessions, both from .env (the
    file refuses to start without them); only the metrics endpoint is open, as Prometheus
    scrapes it (/metrics and /healthz, no contract data)."""
    published = {name for name, s in SERVICES.items() if s.get("ports") and name in OURS}
    assert published == {"flower", "review", "metrics"}
    # Flower and the metrics endpoint are for the operators' machine: the host's loopback only.
    assert all(port.startswith("127.0.0.1:") for name in ("flower", "metrics") for port in SERVICES[name]["ports"])
    required = {"flower": "CLAUSEMILL_FLOWER_BASIC_AUTH", "review": "CLAUSEMILL_SECRET_KEY"}
    for name, variable in required.items():
        assert re.fullmatch(r"\$\{%s:\?[^}]+\}" % variable, SERVICES[name]["environment"][variable]), name
    assert SERVICES["review"]["command"][0] == "serve" and SERVICES["flower"]["command"][0] == "flower"

