"""What the review app's sessions rest on: the signing key and the login throttle."""
from __future__ import annotations

import stat
import threading
from pathlib import Path

import anyio
import pytest

from pipelines.settings import Settings
from web.login_throttle import LoginThrottle, PasswordChecks, ServerBusy
from web.secret_key import session_secret


def test_without_configuration_one_private_key_is_generated_and_kept(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    key = session_secret(settings)
    assert len(key) >= 40 and session_secret(Settings(data_dir=tmp_path)) == key
    assert stat.S_IMODE((tmp_path / "secret_key").stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["secret_key"], "no staging file left behind"


def test_a_configured_key_or_key_file_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key_file = tmp_path / "key"
    key_file.write_text("from-a-file\n")
    assert session_secret(Settings(data_dir=tmp_path, secret_key_file=key_file)) == "from-a-file"
    (tmp_path / "empty").write_text("\n")
    with pytest.raises(ValueError, match="is empty"):
        session_secret(Settings(data_dir=tmp_path, secret_key_file=tmp_path / "empty"))
    monkeypatch.setenv("CLAUSEMILL_SECRET_KEY", "from-the-environment")
    assert session_secret(Settings(data_dir=tmp_path, secret_key_file=key_file)) == "from-the-environment"
    assert "from-the-environment" not in repr(Settings()), "the key must not show in logs of the settings"
    assert not (tmp_path / "secret_key").exists()


def test_the_throttle_counts_each_attempt_before_its_check_until_the_window_passes() -> None:
    throttle = LoginThrottle(max_failures=3, window_s=300)
    assert [throttle.reserve("carol", "10.0.0.1", now=at) for at in (0.0, 10.0, 20.0)] == [0, 0, 0]
    assert throttle.reserve("carol", "10.0.0.1", now=30.0) == 270.0, "three attempts in flight are the limit"
    assert throttle.reserve("carol", "10.0.0.2", now=30.0) == 0, "another address is another key"
    assert throttle.reserve("alice", "10.0.0.1", now=30.0) == 0, "another name is another key"
    assert throttle.reserve("carol", "10.0.0.1", now=300.0) == 0, "the first attempt has aged out"
    assert throttle.reserve("carol", "10.0.0.1", now=301.0) == 9.0, "and the new one took its place"
    throttle.withdraw("carol", "10.0.0.1")
    assert throttle.reserve("carol", "10.0.0.1", now=302.0) == 0, "an attempt never checked does not count"
    throttle.succeeded("carol", "10.0.0.1")
    assert [throttle.reserve("carol", "10.0.0.1", now=303.0) for _ in range(4)] == [0, 0, 0, 300.0]


def test_password_checks_run_one_slot_at_a_time_and_refuse_past_the_queue() -> None:
    release, lock = threading.Event(), threading.Lock()
    at_once, most_at_once, done = 0, 0, []

    def check(n: int) -> int:
        nonlocal at_once, most_at_once
        with lock:
            at_once += 1
            most_at_once = max(most_at_once, at_once)
        release.wait(30)
        with lock:
            at_once -= 1
        return n

    async def main() -> None:
        checks = PasswordChecks(slots=1, queue=1)

        async def run(n: int) -> None:
            done.append(await checks.run(check, n))

        async with anyio.create_task_group() as group:
            group.start_soon(run, 1)
            group.start_soon(run, 2)
            with anyio.fail_after(10):
                while at_once == 0:  # 1 is being checked, 2 waits its turn
                    await anyio.sleep(0.01)
            with pytest.raises(ServerBusy):
                await checks.run(check, 3)
            release.set()

    anyio.run(main)
    assert sorted(done) == [1, 2] and most_at_once == 1
