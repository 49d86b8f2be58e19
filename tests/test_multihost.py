"""Several hosts, and their faults (issue 43): the broker and PostgreSQL on one host, cpu workers
on two, the gpu worker on one of them, and a host that submits.

Each host is a Linux network namespace this module makes, joined by a veth link to a bridge of
its own in the root namespace, with an address in a private /24 it picks (the root namespace
takes .1 on the bridge, so the test process reads the database as an operator's laptop
would).  Nothing else is routed: traffic goes to loopback and to those addresses only.  All of
it is removed when the module ends, failed or not, and what a killed run left behind (its
prefix and a process id that is gone) when the next one starts.

During a batch of six sample contracts (one a three-page scan, so the batch lasts; one broken,
so it ends failed), in turn and one batch per fault:

  1. w1 cut off the network for 90 s (its link to the bridge down), then restored;
  2. every process of w2 killed, and w2 never brought back;
  3. PostgreSQL crashed (immediate shutdown) and started again;
  4. the broker killed (SIGKILL; Redis keeps nothing on disk here) and started again.

Each batch ends with every document done or failed once and no finding stored twice.  The time
from the fault to the batch's end is printed and, when CLAUSEMILL_MULTIHOST_REPORT names a
file, written there as a table (docs/RELIABILITY.md, "Several hosts", has it).

Default settings throughout (the recovery sweep's, the stages' time limits, Redis's visibility
timeout of an hour), except the model: it is off, as in the other fault tests, so a batch is
seconds of work on two cores.  The gpu worker on w1 still starts, but loads no model and gets no
task, so "gpu on one host" is nominal here.

The broker is the cluster fixture's parameter, both in `make test`: Redis, then a private RabbitMQ
node on the broker host (its own node name, data and logs in a folder of the test's, epmd started
by the node inside the namespace; up in about 5 s here) with no result backend named, so the
chords' results go to PostgreSQL.  CLAUSEMILL_MULTIHOST_BROKERS=redis (or rabbitmq) runs one.  A
fault that makes a worker exit fails its test; the next test starts that worker again, as a
supervisor would.
"""
from __future__ import annotations

import os
import pwd
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import kombu
import pytest
import redis
from celery import Celery
from sqlalchemy.exc import OperationalError

from conftest import REPO, _skip_unless, base_env, expected_outcomes, log_tail, some_samples, wait_until
from test_dag_embedded import assert_no_duplicate_findings, load_batch
from test_dag_server import batch_done
from test_recovery import PrivatePostgres, recovery_count

pytestmark = pytest.mark.multihost

PREFIX = "cm"
"""Every namespace and link of a run is named PREFIX + the test process's id + '-': a leftover is
one whose process is gone, so a run beside this one is never cleaned away."""
LEFTOVER = re.compile(rf"^{PREFIX}(\d+)-")
HOSTS = {"broker": 2, "w1": 3, "w2": 4, "submit": 5}
"""Each host and the last byte of its address; the root namespace has .1 on the bridge."""
LINKS = {"broker": "b", "w1": "w1", "w2": "w2", "submit": "s"}
"""The short name of each host's link (an interface name has at most 15 characters)."""

BATCH = ("scanned-distribution-agreement.pdf", "distribution-brightwater-northwind.pdf", "supply-brightwater-granite.pdf",
         "msa-meridian-granite.txt", "subscription-tidewater-silverline.docx", "truncated.pdf")
MODEL_ENABLED = False
WORKERS = {"cpu@w1": 2, "gpu@w1": 1, "cpu@w2": 2}
"""Each worker's node name (queue@host) and concurrency."""
OCR_PROGRAMS = {"tesseract", "pdftoppm"}
"""What a host runs while it reads a page of the scan: the moment a fault takes work with it."""
PARTITION_S = 90.0
FINISH_S = 240.0
"""How long a batch may take to end after its fault is over: the stall limit (45 s) and the
work left, with room for two slow, shared cores."""


def ip(*args: str, check: bool = True) -> str:
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True, timeout=30).stdout


def namespaces() -> list[str]:
    return [line.split()[0] for line in ip("netns", "list").splitlines() if line.strip()]


def links() -> list[str]:
    return [line.split(":")[1].strip().split("@")[0] for line in ip("-o", "link", "show").splitlines()]


def namespace_pids(namespace: str) -> list[int]:
    return [int(pid) for pid in ip("netns", "pids", namespace, check=False).split()]


def kill_namespace(namespace: str) -> None:
    """Every process of the namespace: `ip netns pids NS | xargs kill -9`."""
    for pid in namespace_pids(namespace):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def remove_network(tag: str) -> None:
    """Every process, namespace and link named `tag`-…: this run's at its end, or a killed run's."""
    for namespace in namespaces():
        if namespace.startswith(f"{tag}-"):
            kill_namespace(namespace)
            ip("netns", "del", namespace, check=False)
    for link in links():  # a veth goes with its namespace's end; the bridge stays until deleted
        if link.startswith(f"{tag}-"):
            ip("link", "del", link, check=False)


def remove_leftovers() -> None:
    """What earlier runs that were killed left: their test process is gone."""
    tags = {match.group(0)[:-1] for name in namespaces() + links() if (match := LEFTOVER.match(name))}
    for tag in tags:
        if not Path(f"/proc/{tag[len(PREFIX):]}").exists():
            remove_network(tag)


def free_subnet() -> str:
    """10.231.X (a /24) that no address or route of this machine uses yet."""
    used = ip("-4", "-o", "addr") + ip("-4", "route")
    for third in random.sample(range(256), 256):
        if f"10.231.{third}." not in used:
            return f"10.231.{third}"
    raise AssertionError("every 10.231.X.0/24 is in use on this machine")


def missing_tools() -> str | None:
    """Why this machine cannot make the hosts, or None."""
    if os.geteuid() != 0:
        return "network namespaces need root (ip netns add)"
    for tool in ("ip", "redis-server", "runuser"):
        if shutil.which(tool) is None:
            return f"no {tool} here"
    return None


class Network:
    """The hosts: a namespace each, a veth link each to one bridge, one /24."""

    def __init__(self) -> None:
        self.tag = f"{PREFIX}{os.getpid()}"
        self.subnet = free_subnet()
        self.bridge = f"{self.tag}-br"

    def namespace(self, host: str) -> str:
        return f"{self.tag}-{host}"

    def link(self, host: str) -> str:
        """The root namespace's end of the host's link, the bridge's port."""
        return f"{self.tag}-{LINKS[host]}"

    def address(self, host: str) -> str:
        return f"{self.subnet}.{HOSTS[host]}"

    def create(self) -> None:
        ip("link", "add", self.bridge, "type", "bridge")
        ip("addr", "add", f"{self.subnet}.1/24", "dev", self.bridge)
        ip("link", "set", self.bridge, "up")
        for host in HOSTS:
            namespace, link = self.namespace(host), self.link(host)
            ip("netns", "add", namespace)
            ip("link", "add", link, "type", "veth", "peer", "name", f"{link}p")
            ip("link", "set", f"{link}p", "netns", namespace)
            ip("-n", namespace, "link", "set", f"{link}p", "name", "eth0")
            ip("-n", namespace, "addr", "add", f"{self.address(host)}/24", "dev", "eth0")
            ip("-n", namespace, "link", "set", "eth0", "up")
            ip("-n", namespace, "link", "set", "lo", "up")
            ip("link", "set", link, "master", self.bridge, "up")

    def command(self, host: str, *argv: str) -> list[str]:
        """`argv` run on the host (`ip netns exec` execs it: the process is the program itself)."""
        return ["ip", "netns", "exec", self.namespace(host), *argv]

    def runs(self, host: str, programs: set[str]) -> bool:
        """Whether some process of the host runs one of `programs` now."""
        for pid in namespace_pids(self.namespace(host)):
            try:
                if Path(f"/proc/{pid}/comm").read_text().strip() in programs:
                    return True
            except OSError:
                continue
        return False

    def kill_all(self, host: str) -> None:
        """The host is lost."""
        kill_namespace(self.namespace(host))

    def cut(self, host: str) -> None:
        ip("link", "set", self.link(host), "down")

    def restore(self, host: str) -> None:
        ip("link", "set", self.link(host), "up")

    def remove(self) -> None:
        remove_network(self.tag)


class NamespacedPostgres(PrivatePostgres):
    """tests/test_recovery.py's private PostgreSQL, run on the broker host and listening on its
    address (and on the host's own loopback, where createdb reaches it)."""

    def __init__(self, network: Network) -> None:
        self.network = network
        super().__init__()
        self.url = f"postgresql+psycopg2://postgres@{network.address('broker')}:{self.port}/clausemill"

    def _as_postgres(self, tool: str, *args: str) -> None:
        subprocess.run(self.network.command("broker", "runuser", "-u", "postgres", "--", str(self.bin / tool), *args),
                       check=True, capture_output=True, timeout=60)

    def start(self) -> None:
        hba = self.data / "pg_hba.conf"  # initdb trusts loopback only; the other hosts are on the subnet
        allowed = f"host all all {self.network.subnet}.0/24 trust\n"
        if allowed not in hba.read_text():
            with open(hba, "a") as rules:
                rules.write(allowed)
        self._as_postgres("pg_ctl", "-D", str(self.data), "-w", "-l", str(self.data.parent / "postgres.log"), "-o",
                          f"-p {self.port} -k {self.data.parent} -c fsync=off "
                          f"-c listen_addresses=127.0.0.1,{self.network.address('broker')}", "start")


class RedisBroker:
    """A private Redis on the broker host that keeps nothing on disk, as test_recovery's."""

    def __init__(self, network: Network, folder: Path) -> None:
        self.address, self.folder, self.network = network.address("broker"), folder, network
        self.process: subprocess.Popen[bytes] | None = None

    def env(self) -> dict[str, str]:
        return {"CLAUSEMILL_BROKER_URL": f"redis://{self.address}:6379/0",
                "CLAUSEMILL_RESULT_BACKEND": f"redis://{self.address}:6379/1"}

    def start(self) -> None:
        with open(self.folder / "redis.log", "ab") as log:
            self.process = subprocess.Popen(self.network.command(
                "broker", "redis-server", "--port", "6379", "--bind", self.address, "--protected-mode", "no",
                "--save", "", "--appendonly", "no", "--dir", str(self.folder)), stdout=log, stderr=subprocess.STDOUT)
        wait_until(self.answers, timeout=20, message="Redis to start on the broker host")

    def answers(self) -> bool:
        client = redis.Redis(host=self.address, port=6379, socket_connect_timeout=1)
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False
        finally:
            client.close()

    def queued(self) -> int:
        """Messages waiting in the queues (taken ones not counted)."""
        client = redis.Redis(host=self.address, port=6379, socket_timeout=5)
        try:
            return sum(client.llen(key) for key in client.keys("cpu*") + client.keys("gpu*") if client.type(key) == b"list")
        finally:
            client.close()

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()

    stop = kill


class RabbitmqBroker:
    """A private RabbitMQ node on the broker host: its own node name, data and logs in a folder
    of the test's, epmd started by the node inside the namespace; quorum queues keep their
    messages on disk, so a restart loses none.  No result backend is named: the chords' results
    go to PostgreSQL, as they do on RabbitMQ by default."""

    def __init__(self, network: Network, folder: Path) -> None:
        if shutil.which("rabbitmq-server") is None:
            pytest.skip("no rabbitmq-server here (Debian rabbitmq-server)")
        self.address, self.network = network.address("broker"), network
        self.folder = Path(tempfile.mkdtemp(prefix="clausemill-rabbitmq-"))  # the node runs as rabbitmq
        (self.folder / "rabbitmq.conf").write_text("loopback_users = none\n")  # guest from the other hosts
        shutil.chown(self.folder, "rabbitmq")
        self.process: subprocess.Popen[bytes] | None = None

    def env(self) -> dict[str, str]:
        return {"CLAUSEMILL_BROKER_URL": f"amqp://guest:guest@{self.address}:5672//"}

    def start(self) -> None:
        node = {"RABBITMQ_NODENAME": "clausemill@localhost", "RABBITMQ_NODE_IP_ADDRESS": self.address,
                "RABBITMQ_NODE_PORT": "5672", "RABBITMQ_DIST_PORT": "25672",
                "RABBITMQ_MNESIA_BASE": str(self.folder / "mnesia"), "RABBITMQ_LOG_BASE": str(self.folder / "log"),
                "RABBITMQ_CONFIG_FILE": str(self.folder / "rabbitmq.conf"),
                "RABBITMQ_ENABLED_PLUGINS_FILE": str(self.folder / "enabled_plugins")}
        with open(self.folder / "node.out", "ab") as log:
            self.process = subprocess.Popen(self.network.command("broker", "rabbitmq-server"), env={**os.environ, **node},
                                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_until(self.answers, timeout=60, interval=0.5, message="RabbitMQ to start on the broker host")

    def connection(self) -> kombu.Connection:
        return kombu.Connection(self.env()["CLAUSEMILL_BROKER_URL"], connect_timeout=2)

    def answers(self) -> bool:
        try:
            with self.connection() as connection:
                connection.connect()
            return True
        except Exception:  # noqa: BLE001 - not up yet
            return False

    def queued(self) -> int:
        with self.connection() as connection:
            total = 0
            for queue in ("cpu", "gpu"):
                with connection.channel() as channel:  # a passive declare of a missing queue closes its channel
                    try:
                        total += channel.queue_declare(queue=queue, passive=True).message_count
                    except connection.channel_errors:
                        pass
            return total

    def kill(self) -> None:
        """SIGKILL of the node: the start script's group, and every process of the broker host
        that runs as rabbitmq (su puts the Erlang VM, epmd and their helpers in groups of their own)."""
        if self.process is None:
            return
        owner = pwd.getpwnam("rabbitmq").pw_uid
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        for pid in namespace_pids(self.network.namespace("broker")):
            try:
                if os.stat(f"/proc/{pid}").st_uid == owner:
                    os.kill(pid, signal.SIGKILL)
            except (FileNotFoundError, ProcessLookupError):
                continue
        self.process.wait()
        wait_until(lambda: not self.network.runs("broker", {"beam.smp"}), timeout=20, message="the node to die")

    def stop(self) -> None:
        self.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


BROKERS: dict[str, type[RedisBroker] | type[RabbitmqBroker]] = {"redis": RedisBroker, "rabbitmq": RabbitmqBroker}


@dataclass
class Cluster:
    network: Network
    broker: RedisBroker | RabbitmqBroker
    postgres: NamespacedPostgres
    folder: Path
    contracts: Path
    workers: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    """Worker node name (queue@host) -> its process, while its host lives."""
    busy: str = "not asked yet"
    """Why the cluster was not idle when last asked (`idle`)."""

    @property
    def url(self) -> str:
        return self.postgres.url

    def env(self, host: str) -> dict[str, str]:
        """A host's environment: its own data folder, the broker host's services."""
        env = base_env(self.folder / host)
        env.update(self.broker.env(), CLAUSEMILL_DATABASE_URL=self.url,
                   CLAUSEMILL_MODEL_ENABLED=str(MODEL_ENABLED).lower())
        return env

    def log(self, name: str) -> Path:
        return self.folder / f"{name}.log"

    def cli(self, host: str, *args: str) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(self.network.command(host, sys.executable, "-m", "pipelines.cli", *args),
                                env=self.env(host), cwd=REPO, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stdout + result.stderr
        return result

    def start_workers(self, names: list[str]) -> None:
        """`clausemill worker` for each node name on its host; back once every live worker answers."""
        for name in names:
            queue, host = name.split("@")
            with open(self.log(name), "ab") as out:
                self.workers[name] = subprocess.Popen(
                    self.network.command(host, sys.executable, "-m", "pipelines.cli", "worker", "--queues", queue,
                                         "--concurrency", str(WORKERS[name]), "--hostname", name),
                    env=self.env(host), cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
        wait_until(self.all_answer, timeout=180, interval=1,
                   message=f"every live worker ({', '.join(self.workers)}) to answer")

    def lose(self, host: str) -> None:
        """Every process of the host killed; its workers are not counted on again."""
        self.network.kill_all(host)
        for name in [name for name in self.workers if name.endswith(f"@{host}")]:
            self.workers.pop(name).wait(timeout=30)

    def answering(self) -> set[str]:
        """The workers that answer a ping through the broker now."""
        app = Celery(broker=self.broker.env()["CLAUSEMILL_BROKER_URL"])
        try:
            return {name for reply in app.control.ping(destination=list(self.workers), timeout=2) for name in reply}
        except Exception:  # noqa: BLE001 - the broker is away: nobody answers
            return set()
        finally:
            app.close()

    def idle(self) -> bool:
        """Nothing queued and no worker running a task: what a fault set going has ended, so
        the batch's rows are final (a cut-off host's stale task may still write when it is back).
        Why not, when not, in `self.busy`: the message of a wait that times out."""
        fail_for_dead(self.died())  # a dead worker never answers: say why now
        app = Celery(broker=self.broker.env()["CLAUSEMILL_BROKER_URL"])
        try:
            active = app.control.inspect(destination=list(self.workers), timeout=2).active() or {}
            queued = self.broker.queued()
        except Exception as error:  # noqa: BLE001 - a connection the broker's restart closed: ask again
            self.busy = f"the broker did not answer ({error!r})"
            return False
        finally:
            app.close()
        silent = sorted(set(self.workers) - set(active))
        running = {name: [f"{task['name']}{task['args']}" for task in tasks] for name, tasks in active.items() if tasks}
        self.busy = f"silent: {silent}; running: {running}; queued: {queued}"
        return not silent and not running and queued == 0

    def revive(self, within_s: float = 240) -> None:
        """Workers that exited started again, and again while they exit at once, as a supervisor's
        restart policy does (on RabbitMQ a node name stays locked until the broker drops the
        connection it held, a heartbeat timeout after the host went quiet)."""
        deadline = time.monotonic() + within_s
        while dead := list(self.died()):
            try:
                self.start_workers(dead)
            except WorkerExited:
                if time.monotonic() > deadline:
                    raise
                time.sleep(5)

    def all_answer(self) -> bool:
        """Every live worker answers a ping (one that exited fails the test now, saying why)."""
        fail_for_dead(self.died())
        return self.answering() == set(self.workers)

    def died(self) -> dict[str, str]:
        """Workers that exited although their host lives, with the error that ended each."""
        return {name: unrecoverable_error(self.log(name)) for name, process in self.workers.items()
                if process.poll() is not None}

    def done(self, batch_id: str) -> bool:
        try:
            return batch_done(self.url, batch_id)
        except OperationalError:  # PostgreSQL is restarting
            return False

    def until_done(self, batch_id: str, deadline: float) -> float | None:
        """When (time.monotonic()) the batch was seen done, or None at the deadline."""
        while time.monotonic() < deadline:
            if self.done(batch_id):
                return time.monotonic()
            fail_for_dead(self.died())  # a batch that no worker is left to finish would never end
            time.sleep(0.5)
        return None

    def submit(self, batch_id: str) -> float:
        """The batch sent from the submitting host, nobody waiting for it; when it was sent.  A
        worker an earlier fault ended (that test failed, saying so) is started again first, as a
        supervisor would, so each fault meets the whole cluster."""
        self.revive()
        sent = time.monotonic()
        submitted = self.cli("submit", "audit", str(self.contracts), "--no-wait", "--batch-id", batch_id)
        assert submitted.stdout.strip().splitlines()[-1] == batch_id
        return sent

    def check(self, batch_id: str, expected: dict[str, str]) -> str:
        """Every document done or failed once, as the samples' manifest says, and no finding
        twice, once whatever the fault set going has ended; the outcome in words."""
        try:
            wait_until(self.idle, timeout=180, interval=2, message="the workers to finish what the fault left running")
        except AssertionError as error:
            raise AssertionError(f"{error}; last seen: {self.busy}") from None
        documents = load_batch(self.url, batch_id).documents
        assert sorted(d.filename for d in documents) == sorted(expected)
        assert {d.filename: d.status for d in documents} == expected
        assert_no_duplicate_findings(self.url, batch_id)
        done = sum(1 for d in documents if d.status == "done")
        return f"{done} done, {len(documents) - done} failed"


BROKERS_UNDER_TEST = os.environ.get("CLAUSEMILL_MULTIHOST_BROKERS", "redis,rabbitmq").split(",")
"""Both brokers in `make test`, about 4 and 3 minutes here."""


@pytest.fixture(scope="module", params=BROKERS_UNDER_TEST)
def cluster(request: pytest.FixtureRequest, sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """The four hosts, their services and workers, migrated; all removed at the end."""
    _skip_unless(missing_tools())
    remove_leftovers()
    folder = tmp_path_factory.mktemp(f"multihost-{request.param}")
    network = Network()
    postgres: NamespacedPostgres | None = None
    broker = BROKERS[request.param](network, folder)
    cluster: Cluster | None = None
    try:
        network.create()
        broker.start()
        postgres = NamespacedPostgres(network)
        cluster = Cluster(network, broker, postgres, folder, some_samples(sample_dir, folder / "contracts", BATCH))
        cluster.cli("submit", "migrate")
        cluster.start_workers(list(WORKERS))
        yield cluster
    finally:
        broker.stop()
        if postgres is not None:
            postgres.stop()
        network.remove()
        # pytest shows a fixture's teardown output only when a test failed: then it says why
        for name in WORKERS:
            log = folder / f"{name}.log"
            print(f"--- last lines of {log.name} ---\n{log_tail(log)}")


@pytest.fixture()
def expected(sample_dir: Path) -> dict[str, str]:
    outcomes = expected_outcomes(sample_dir)
    return {name: outcomes[name] for name in BATCH}


REPORT_ROWS: list[str] = []


def record(cluster: Cluster, fault: str, batch_id: str, sent: float, hit: float, over: float | None,
           finished: float | None, outcome: str, note: str = "") -> None:
    """Prints the batch's figures and writes every row so far to CLAUSEMILL_MULTIHOST_REPORT.
    `over`: when the fault ended (None: it never does, as a host lost for good); `finished`:
    when the batch was seen done (None: it was not)."""
    broker = type(cluster.broker).__name__.removesuffix("Broker").lower()
    lasted = "for good" if over is None else f"{over - hit:.0f} s"
    done = "—" if finished is None else f"{finished - hit:.0f} s"
    after = ("—" if over is None or finished is None else
             "before it was over" if finished < over else f"{finished - over:.0f} s")
    row = (f"| {broker} | {fault} | {hit - sent:.0f} s | {lasted} | {done} | {after} | "
           f"{recovery_count(cluster.url, batch_id)} | {outcome} | {note} |")
    print(f"{fault}: batch done {done} after the fault hit; after it was over: {after}; {outcome}; {note}")
    REPORT_ROWS.append(row)
    if report := os.environ.get("CLAUSEMILL_MULTIHOST_REPORT"):
        Path(report).write_text("\n".join([
            "| broker | fault | hit, after the batch was sent | lasted | batch done after the fault hit | after it was over "
            "| documents re-sent | outcome | note |",
            "|---|---|---|---|---|---|---|---|---|", *REPORT_ROWS]) + "\n")


class WorkerExited(AssertionError):
    """A worker whose host lives exited of itself during a fault."""


def unrecoverable_error(log: Path) -> str:
    """The error that ended a worker, from its log."""
    lines = [line for line in log.read_text(errors="replace").splitlines() if "Unrecoverable error" in line]
    return lines[-1] if lines else f"exited with no 'Unrecoverable error' logged; last lines:\n{log_tail(log, 20)}"


def fail_for_dead(died: dict[str, str]) -> None:
    """Workers that exited of themselves fail the test, with what ended each."""
    if died:
        raise WorkerExited(f"{', '.join(died)} exited: {died}")


def wait_for_ocr(cluster: Cluster, host: str) -> None:
    wait_until(lambda: cluster.network.runs(host, OCR_PROGRAMS), timeout=120, interval=0.05,
               message=f"{host} to read a page of the scan")


def test_a_worker_host_cut_off_for_90_s_rejoins_and_the_batch_completes(
        cluster: Cluster, expected: dict[str, str]) -> None:
    """w1's link down while it reads a page of the scan: its tasks can reach neither the broker
    nor the database.  w2's sweep takes w1's documents for lost once their heartbeats stop
    (45 s) and sends them again; w1's stale task writes when it is back, and replaces rather
    than duplicates."""
    sent = cluster.submit("partition")
    wait_for_ocr(cluster, "w1")
    hit = time.monotonic()
    cluster.network.cut("w1")
    try:
        finished = cluster.until_done("partition", hit + PARTITION_S)
        time.sleep(max(0.0, hit + PARTITION_S - time.monotonic()))  # the batch may end first: w1 stays cut
    finally:
        cluster.network.restore("w1")
    over = time.monotonic()
    try:
        finished = finished or cluster.until_done("partition", over + FINISH_S)
        assert finished, f"the batch did not end within {FINISH_S:.0f} s of w1's return"
        wait_until(cluster.all_answer, timeout=180, interval=1, message="w1's workers to answer again")
        back = time.monotonic() - over
        outcome = cluster.check("partition", expected)
    except WorkerExited as exited:
        record(cluster, "w1 cut off the network for 90 s", "partition", sent, hit, over, finished,
               "workers exited", str(exited).split(":")[0])
        raise
    assert recovery_count(cluster.url, "partition") >= 1, "nothing of w1's was taken for lost: the cut missed the batch"
    record(cluster, "w1 cut off the network for 90 s", "partition", sent, hit, over, finished, outcome,
           f"w1's workers answered again {back:.0f} s after it was back")


def test_a_worker_host_lost_for_good_leaves_its_documents_to_the_other(cluster: Cluster, expected: dict[str, str]) -> None:
    """Every process of w2 killed while it reads a page: on Redis its messages stay taken in the
    unacked hash for the visibility timeout (an hour), so the sweep on w1 sends its documents
    again once their heartbeats have stopped for 45 s; on RabbitMQ, whose connections to w2 close
    with its processes, the broker delivers them again at once."""
    sent = cluster.submit("host-lost")
    wait_for_ocr(cluster, "w2")
    hit = time.monotonic()
    cluster.lose("w2")
    finished = cluster.until_done("host-lost", hit + FINISH_S)
    assert finished, f"the batch did not end within {FINISH_S:.0f} s of losing w2"
    outcome = cluster.check("host-lost", expected)
    if isinstance(cluster.broker, RedisBroker):  # RabbitMQ requeues what w2 held once its connections close
        assert recovery_count(cluster.url, "host-lost") >= 1, "w2 took no document with it: the fault missed the batch"
    record(cluster, "w2 killed whole, never back", "host-lost", sent, hit, None, finished, outcome)


def test_a_postgresql_restart_mid_batch_loses_nothing(cluster: Cluster, expected: dict[str, str]) -> None:
    """PostgreSQL crashed (immediate shutdown: every connection cut) and started 3 s later:
    tasks retry with backoff, heartbeats try again every second."""
    sent = cluster.submit("pg-restart")
    wait_for_ocr(cluster, "w1")
    hit = time.monotonic()
    cluster.postgres.crash()
    time.sleep(3)  # tasks meet a database that is gone
    cluster.postgres.start()
    over = time.monotonic()
    finished = cluster.until_done("pg-restart", over + FINISH_S)
    assert finished, f"the batch did not end within {FINISH_S:.0f} s of PostgreSQL's restart"
    outcome = cluster.check("pg-restart", expected)
    record(cluster, "PostgreSQL crashed and started again", "pg-restart", sent, hit, over, finished, outcome)


def test_a_broker_restart_mid_batch_is_repaired_by_the_workers_sweep(
        cluster: Cluster, expected: dict[str, str]) -> None:
    """The broker killed and started again.  Redis: every queued message and OCR chord counter
    gone; the workers reconnect and sweep once the stall limit has passed (45 s), re-sending what
    nothing works on.  RabbitMQ: the quorum queues keep every message on disk, and what the
    workers held unacknowledged is delivered again."""
    sent = cluster.submit("broker-restart")
    wait_for_ocr(cluster, "w1")
    hit = time.monotonic()
    cluster.broker.kill()
    cluster.broker.start()
    over = time.monotonic()
    finished = None
    try:
        finished = cluster.until_done("broker-restart", over + FINISH_S)
        assert finished, f"the batch did not end within {FINISH_S:.0f} s of the broker's restart"
        outcome = cluster.check("broker-restart", expected)
    except WorkerExited as exited:
        record(cluster, "broker killed and started again", "broker-restart", sent, hit, over, finished,
               "a worker exited", str(exited).split(":")[0])
        raise
    record(cluster, "broker killed and started again", "broker-restart", sent, hit, over, finished, outcome)
