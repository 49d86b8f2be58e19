"""What the review app's sessions rest on: the signing key and the login throttle."""
from __future__ import annotations

import stat
from pathlib import Path

import pytest

from pipelines.settings import Settings
from web.login_throttle import LoginThrottle
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


def test_the_throttle_blocks_after_the_failures_until_the_window_passes() -> None:
    throttle = LoginThrottle(max_failures=3, window_s=300)
    for at in (0.0, 10.0, 20.0):
        assert throttle.retry_after_s("carol", "10.0.0.1", now=at) == 0
        throttle.failed("carol", "10.0.0.1", now=at)
    assert throttle.retry_after_s("carol", "10.0.0.1", now=30.0) == 270.0
    assert throttle.retry_after_s("carol", "10.0.0.2", now=30.0) == 0, "another address is another key"
    assert throttle.retry_after_s("alice", "10.0.0.1", now=30.0) == 0, "another name is another key"
    assert throttle.retry_after_s("carol", "10.0.0.1", now=300.0) == 0, "the first failure has aged out"
    throttle.failed("carol", "10.0.0.1", now=300.0)
    assert throttle.retry_after_s("carol", "10.0.0.1", now=301.0) == 9.0
    throttle.succeeded("carol", "10.0.0.1")
    assert throttle.retry_after_s("carol", "10.0.0.1", now=301.0) == 0
