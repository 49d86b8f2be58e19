"""The cluster as shipped: docker-compose.yml (checked as far as this machine can, with no
Docker engine) and ops/cluster.sh, its native twin, run for real on Redis + PostgreSQL."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import REPO
from pipelines.cli import app as cli

COMPOSE = yaml.safe_load((REPO / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
OURS = {name: s for name, s in SERVICES.items() if "build" in s}


def cli_commands() -> set[str]:
    return {command.name or command.callback.__name__ for command in cli.registered_commands}


def test_every_clausemill_service_runs_a_command_the_cli_has() -> None:
    assert set(OURS) >= {"migrate", "cpu-worker", "gpu-worker", "scheduler", "watcher", "flower", "metrics"}
    assert {name: s["command"][0] for name, s in OURS.items() if s["command"][0] not in cli_commands()} == {}


def test_every_long_running_service_has_a_healthcheck_and_waits_for_the_migration() -> None:
    for name, service in SERVICES.items():
        if name == "migrate":
            continue
        assert "healthcheck" in service, name
        if name in OURS:
            assert service["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}, name


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
