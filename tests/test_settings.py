"""One settings object: environment over clausemill.toml over defaults; empty URLs mean embedded."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import REDIS_URL, _services_up
from pipelines.settings import Settings
from workers.celery_app import broker_transport_options, create_app


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CLAUSEMILL_BROKER_URL", "CLAUSEMILL_RESULT_BACKEND", "CLAUSEMILL_DATABASE_URL", "CLAUSEMILL_CONFIG",
                 "CLAUSEMILL_MAX_PAGES", "CLAUSEMILL_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)


def test_no_configuration_means_embedded_under_the_data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CLAUSEMILL_DATA_DIR", str(tmp_path / "data"))
    settings = Settings()
    assert settings.embedded
    assert settings.effective_broker_url == "clausemillfs://"
    assert settings.effective_database_url == f"sqlite:///{tmp_path / 'data' / 'clausemill.sqlite'}"
    options = broker_transport_options(settings)
    assert options["data_folder_in"] == options["data_folder_out"] == str(tmp_path / "data" / "broker" / "queue")


def test_toml_file_then_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    config = tmp_path / "clausemill.toml"
    config.write_text('broker_url = "redis://127.0.0.1:6379/3"\nmax_pages = 50\nvisibility_timeout_s = 1000\n')
    monkeypatch.setenv("CLAUSEMILL_CONFIG", str(config))
    monkeypatch.setenv("CLAUSEMILL_MAX_PAGES", "70")
    settings = Settings()
    assert not settings.embedded
    assert settings.max_pages == 70  # the environment wins over the file
    assert broker_transport_options(settings)["visibility_timeout"] == 1000


def test_celery_app_is_json_only_with_late_acks_and_queue_routing(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=tmp_path))
    conf = app.conf
    assert conf.accept_content == ["json"] and conf.task_serializer == "json"
    assert conf.task_acks_late and conf.task_reject_on_worker_lost and conf.worker_prefetch_multiplier == 1
    assert app.amqp.router.route({}, "clausemill.gpu.analyse_model")["queue"].name == "gpu"
    assert app.amqp.router.route({}, "clausemill.cpu.ocr_page")["queue"].name == "cpu"
    assert (conf.worker_max_memory_per_child, conf.worker_max_tasks_per_child) == (1024 * 1024, 500)
    unlimited = create_app(Settings(data_dir=tmp_path, worker_max_memory_mb=0, worker_max_tasks=0)).conf
    assert (unlimited.worker_max_memory_per_child, unlimited.worker_max_tasks_per_child) == (None, None)


def test_a_visibility_timeout_shorter_than_a_task_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="visibility_timeout_s .* must exceed the longest task time limit"):
        Settings(data_dir=tmp_path, visibility_timeout_s=600)


def test_a_worker_killed_while_restoring_blocks_redelivery_for_a_minute_at_most(tmp_path: Path) -> None:
    """kombu's restore mutex, taken as a worker takes it and never released (the worker was
    SIGKILLed inside the restore), expires in Redis within 60 s, not kombu's default 300 s."""
    import redis
    from kombu.transport.redis import Mutex

    if (why := _services_up()) is not None:
        pytest.skip(why)
    broker = f"{REDIS_URL}/12"
    client = redis.Redis.from_url(broker)
    client.flushdb()
    app = create_app(Settings(data_dir=tmp_path, broker_url=broker, visibility_timeout_s=3600))
    with app.connection_for_write() as connection:
        channel = connection.default_channel
        held = Mutex(client, channel.unacked_mutex_key, channel.unacked_mutex_expire)
        held.__enter__()  # were the worker killed here, nothing would release it
        ttl = client.ttl(channel.unacked_mutex_key)
        held.__exit__(None, None, None)
    assert 0 < ttl <= 60
    client.flushdb()
