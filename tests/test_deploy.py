"""The Kubernetes manifests (ops/k8s/) as a cluster would take them, checked without one.

Every object is validated against the Kubernetes API's JSON schemas (kubernetes-validate, which
bundles them: no network), in strict mode, for the oldest version we support and the newest it
knows.  KEDA's objects are not in those schemas: they are validated against the fields this
project uses (KEDA_SCHEMAS below, checked once against KEDA's own CRDs).  Then what the objects
say about each other and about clausemill: a ScaledObject's Deployment exists and works the
queue it scales on, every secret key is in the example Secret, every ConfigMap key is a setting,
every probe runs a real command, and the processes are docker-compose.yml's.

Both kustomizations are built here as kustomize builds them (the features ops/k8s uses:
resources, patches, the namespace); with kubectl on the machine, a test checks that this build is
kustomize's own.
"""
from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import time
from pathlib import Path
from urllib.parse import urlsplit

import jsonschema
import kubernetes_validate
import pytest
import yaml

from conftest import REPO, base_env, run_cli
from pipelines.dag import STAGES, Queue
from pipelines.liveness import Process, write_beat
from pipelines.nightly.beat import STOP_DEADLINE_S, TASK_STOP_S
from pipelines.settings import HARD_LIMIT_GRACE_S, Settings
from workers import redis_transport

K8S = REPO / "ops" / "k8s"
EXAMPLE_SECRET = K8S / "secret.example.yaml"
OVERLAYS = {"redis": K8S, "rabbitmq": K8S / "rabbitmq"}
KUBERNETES_VERSIONS = ("1.30.0", kubernetes_validate.latest_version())
"""The oldest Kubernetes we support, and the newest whose schemas kubernetes-validate bundles."""
SECRETS = {"CLAUSEMILL_DATABASE_URL", "CLAUSEMILL_BROKER_URL", "CLAUSEMILL_RESULT_BACKEND", "CLAUSEMILL_SECRET_KEY",
           "CLAUSEMILL_FLOWER_BASIC_AUTH"}
"""Settings that only ever come from the Secret."""
COMPOSE = yaml.safe_load((REPO / "docker-compose.yml").read_text())["services"]


def documents(path: Path) -> list[dict]:
    return documents_of(path.read_text())


def documents_of(text: str) -> list[dict]:
    return [doc for doc in yaml.safe_load_all(text) if doc]


def kustomization(folder: Path) -> dict:
    return yaml.safe_load((folder / "kustomization.yaml").read_text())


def merge_patch(target: dict, patch: dict) -> dict:
    """RFC 7386, as kustomize patches a custom resource it has no schema for: maps merged key
    by key, anything else (lists included) replaced."""
    merged = copy.deepcopy(target)
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_patch(merged[key], value)
        elif value is None:
            merged.pop(key, None)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def build(folder: Path) -> list[dict]:
    """The objects `kubectl kustomize FOLDER` makes."""
    spec = kustomization(folder)
    objects: list[dict] = []
    for entry in spec.get("resources", []):
        path = (folder / entry).resolve()
        objects += build(path) if path.is_dir() else documents(path)
    for entry in spec.get("patches", []):
        for patch in documents(folder / entry["path"]):
            key = (patch["kind"], patch["metadata"]["name"])
            if patch.get("$patch") == "delete":
                objects = [o for o in objects if (o["kind"], o["metadata"]["name"]) != key]
            else:
                assert key in {(o["kind"], o["metadata"]["name"]) for o in objects}, f"{entry['path']} patches nothing"
                objects = [merge_patch(o, patch) if (o["kind"], o["metadata"]["name"]) == key else o for o in objects]
    if "namespace" in spec:
        for o in objects:
            if o["kind"] != "Namespace":
                o["metadata"]["namespace"] = spec["namespace"]
    return objects


def listed_files() -> tuple[set[Path], set[Path]]:
    """The files kustomizations list as resources, and as patches."""
    resources, patches = set(), set()
    for folder in {path.parent for path in K8S.rglob("kustomization.yaml")}:
        spec = kustomization(folder)
        resources |= {(folder / e).resolve() for e in spec.get("resources", []) if (folder / e).is_file()}
        patches |= {(folder / e["path"]).resolve() for e in spec.get("patches", [])}
    return resources, patches


BUILDS = {name: build(folder) for name, folder in OVERLAYS.items()}
SECRET = documents(EXAMPLE_SECRET)[0]


def of_kind(objects: list[dict], kind: str) -> dict[str, dict]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def pod_specs(objects: list[dict]) -> dict[str, dict]:
    """Each Deployment's and Job's pod spec, by the object's name."""
    return {o["metadata"]["name"]: o["spec"]["template"]["spec"] for o in objects if o["kind"] in ("Deployment", "Job")}


def containers(pod: dict) -> list[dict]:
    return [*pod.get("initContainers", []), *pod["containers"]]


def clausemill_containers(objects: list[dict]) -> list[tuple[str, dict]]:
    """(object name, container) for every container running a clausemill command (its args)."""
    return [(name, c) for name, pod in pod_specs(objects).items() for c in pod["containers"]]


def option(args: list[str], name: str) -> str | None:
    return args[args.index(name) + 1] if name in args else None


def cli_commands() -> set[str]:
    from pipelines.cli import app as cli

    return {command.name or command.callback.__name__ for command in cli.registered_commands}


def settings_of(config_map: dict, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Settings as a pod with this ConfigMap in its environment reads them."""
    for name, value in config_map["data"].items():
        monkeypatch.setenv(name, value)
    return Settings()


# --- the files ----------------------------------------------------------------------------------

def test_every_file_is_a_listed_manifest_a_patch_or_the_example_secret() -> None:
    resources, patches = listed_files()
    kustomizations = {path.resolve() for path in K8S.rglob("kustomization.yaml")}
    everything = {path.resolve() for path in K8S.rglob("*") if path.is_file()}
    assert everything - resources - patches - kustomizations == {EXAMPLE_SECRET.resolve()}
    assert all(path.suffix == ".yaml" for path in everything)
    # No placeholder password is ever applied: the Secret is in no build.
    assert [o for objects in BUILDS.values() for o in objects if o["kind"] == "Secret"] == []


def test_every_kubernetes_object_validates_against_the_api_schemas() -> None:
    resources, _ = listed_files()
    problems = []
    for path in sorted(resources | {EXAMPLE_SECRET.resolve()}):
        for doc in documents(path):
            if doc["apiVersion"].startswith("keda.sh/"):
                continue
            for version in KUBERNETES_VERSIONS:
                try:
                    kubernetes_validate.validate(doc, version, strict=True)
                except kubernetes_validate.ValidationError as error:
                    where = ".".join(map(str, error.path))
                    problems.append(f"{path.relative_to(REPO)} {doc['kind']}/{doc['metadata']['name']} "
                                    f"(Kubernetes {version}) at {where}: {error.message}")
    assert problems == []


STRING_NUMBER = {"type": "string", "pattern": "^[0-9]+$"}
"""KEDA's trigger metadata is a map of strings: a number written unquoted is refused by the API."""


def closed(properties: dict, required: tuple[str, ...] = ()) -> dict:
    return {"type": "object", "properties": properties, "required": list(required), "additionalProperties": False}


NAME_REF = closed({"name": {"type": "string", "minLength": 1}}, ("name",))
KEDA_METADATA = closed({"name": {"type": "string"}, "namespace": {"type": "string"},
                        "labels": {"type": "object", "additionalProperties": {"type": "string"}}}, ("name",))
SCALING_RULES = closed({
    "stabilizationWindowSeconds": {"type": "integer", "minimum": 0, "maximum": 3600},
    "policies": {"type": "array", "items": closed({"type": {"enum": ["Pods", "Percent"]},
                                                   "value": {"type": "integer", "minimum": 1},
                                                   "periodSeconds": {"type": "integer", "minimum": 1, "maximum": 1800}},
                                                  ("type", "value", "periodSeconds"))},
})
TRIGGERS = {
    "redis": closed({"listName": {"type": "string"}, "listLength": STRING_NUMBER,
                     "activationListLength": STRING_NUMBER, "databaseIndex": STRING_NUMBER}, ("listName", "listLength")),
    "rabbitmq": closed({"protocol": {"enum": ["amqp", "http", "auto"]}, "queueName": {"type": "string"},
                        "mode": {"const": "QueueLength"}, "value": STRING_NUMBER, "activationValue": STRING_NUMBER},
                       ("queueName", "mode", "value")),
}
KEDA_SCHEMAS = {
    "ScaledObject": closed({
        "apiVersion": {"const": "keda.sh/v1alpha1"}, "kind": {"const": "ScaledObject"}, "metadata": KEDA_METADATA,
        "spec": closed({
            "scaleTargetRef": closed({"name": {"type": "string"}, "kind": {"const": "Deployment"},
                                      "apiVersion": {"const": "apps/v1"}}, ("name",)),
            "minReplicaCount": {"type": "integer", "minimum": 0},
            "maxReplicaCount": {"type": "integer", "minimum": 1},
            "pollingInterval": {"type": "integer", "minimum": 1},
            "cooldownPeriod": {"type": "integer", "minimum": 0},
            "advanced": closed({"horizontalPodAutoscalerConfig": closed({"behavior": closed(
                {"scaleDown": SCALING_RULES, "scaleUp": SCALING_RULES})})}),
            "triggers": {"type": "array", "minItems": 1, "items": {"oneOf": [
                closed({"type": {"const": kind}, "metadata": metadata, "authenticationRef": NAME_REF},
                       ("type", "metadata", "authenticationRef"))
                for kind, metadata in TRIGGERS.items()]}},
        }, ("scaleTargetRef", "triggers")),
    }, ("apiVersion", "kind", "metadata", "spec")),
    "TriggerAuthentication": closed({
        "apiVersion": {"const": "keda.sh/v1alpha1"}, "kind": {"const": "TriggerAuthentication"},
        "metadata": KEDA_METADATA,
        "spec": closed({"secretTargetRef": {"type": "array", "minItems": 1, "items": closed(
            {"parameter": {"enum": ["address", "password", "host"]}, "name": {"type": "string"},
             "key": {"type": "string"}}, ("parameter", "name", "key"))}}, ("secretTargetRef",)),
    }, ("apiVersion", "kind", "metadata", "spec")),
}
"""The fields of KEDA's ScaledObject and TriggerAuthentication (keda.sh/v1alpha1) that ops/k8s
uses, each as KEDA's CRD types it, and nothing else: a misspelt field fails here rather than
being dropped by the API server.  The trigger metadata are those of KEDA's redis and rabbitmq
scalers."""


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_keda_objects_validate_against_the_fields_we_use(overlay: str) -> None:
    keda = [o for o in BUILDS[overlay] if o["apiVersion"].startswith("keda.sh/")]
    assert sorted(o["kind"] for o in keda) == ["ScaledObject", "ScaledObject", "TriggerAuthentication"]
    for o in keda:
        jsonschema.validate(o, KEDA_SCHEMAS[o["kind"]])
    wrong = copy.deepcopy(of_kind(keda, "ScaledObject")["clausemill-gpu-worker"])
    wrong["spec"]["minReplicas"] = 0  # the HPA's word, not KEDA's
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(wrong, KEDA_SCHEMAS["ScaledObject"])


@pytest.mark.skipif(not shutil.which("kubectl"), reason="kubectl (with its kustomize) is not installed here")
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_this_build_is_kustomizes_own(overlay: str) -> None:
    done = subprocess.run(["kubectl", "kustomize", str(OVERLAYS[overlay])], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr

    def canonical(objects: list[dict]) -> list[str]:
        return sorted(json.dumps(o, sort_keys=True) for o in objects)

    assert canonical(documents_of(done.stdout)) == canonical(BUILDS[overlay])


# --- what the objects say about each other -------------------------------------------------------

@pytest.mark.parametrize("overlay", OVERLAYS)
def test_each_worker_kind_scales_on_its_own_queue(overlay: str) -> None:
    objects = BUILDS[overlay]
    deployments, authentications = of_kind(objects, "Deployment"), of_kind(objects, "TriggerAuthentication")
    scaled = {}
    for scaled_object in of_kind(objects, "ScaledObject").values():
        spec = scaled_object["spec"]
        target = deployments[spec["scaleTargetRef"]["name"]]
        assert "replicas" not in target["spec"], "KEDA owns the replicas: an applied count would fight it"
        [worker] = target["spec"]["template"]["spec"]["containers"]
        queue = Queue(option(worker["args"], "--queues"))
        triggers = spec["triggers"]
        assert {t["type"] for t in triggers} == {overlay}
        assert {t["authenticationRef"]["name"] for t in triggers} <= set(authentications)
        if overlay == "redis":  # a list per priority the queue's stages are sent at
            lists = {queue if stage.turn == 0 else f"{queue}{redis_transport.SEPARATOR}{stage.turn}"
                     for stage in STAGES if stage.queue is queue}
            assert sorted(t["metadata"]["listName"] for t in triggers) == sorted(lists)
        else:
            assert [t["metadata"]["queueName"] for t in triggers] == [queue]
        scaled[queue] = spec
    assert set(scaled) == set(Queue)
    assert scaled[Queue.GPU]["minReplicaCount"] == 0  # nothing to do, no GPU held
    assert scaled[Queue.CPU]["minReplicaCount"] >= 1  # the cpu workers run the recovery sweep


def test_the_redis_trigger_reads_the_brokers_own_address_and_database() -> None:
    """KEDA takes host:port, password and database apart; in the example they are the broker URL's."""
    broker = urlsplit(SECRET["stringData"]["CLAUSEMILL_BROKER_URL"])
    assert broker.scheme == "redis"
    assert SECRET["stringData"]["KEDA_REDIS_ADDRESS"] == f"{broker.hostname}:{broker.port}"
    assert SECRET["stringData"]["KEDA_REDIS_PASSWORD"] == broker.password
    for scaled_object in of_kind(BUILDS["redis"], "ScaledObject").values():
        for trigger in scaled_object["spec"]["triggers"]:
            assert trigger["metadata"]["databaseIndex"] == broker.path.lstrip("/")
    parameters = {ref["parameter"]: ref["key"] for ref in of_kind(BUILDS["rabbitmq"], "TriggerAuthentication")
                  ["clausemill-rabbitmq"]["spec"]["secretTargetRef"]}
    assert parameters == {"host": "CLAUSEMILL_BROKER_URL"}


def secret_refs(objects: list[dict]) -> set[tuple[str, str]]:
    """(Secret, key) of every secretKeyRef in a container and every KEDA secretTargetRef."""
    refs = {(ref["name"], ref["key"]) for o in objects if o["kind"] == "TriggerAuthentication"
            for ref in o["spec"]["secretTargetRef"]}
    for pod in pod_specs(objects).values():
        for container in containers(pod):
            refs |= {(v["valueFrom"]["secretKeyRef"]["name"], v["valueFrom"]["secretKeyRef"]["key"])
                     for v in container.get("env", []) if "secretKeyRef" in v.get("valueFrom", {})}
    return refs


def test_every_secret_key_referenced_is_in_the_example_secret_and_every_key_there_is_used() -> None:
    example = {(SECRET["metadata"]["name"], key) for key in SECRET["stringData"]}
    used = set().union(*(secret_refs(objects) for objects in BUILDS.values()))
    assert used == example
    assert {key for _, key in used} >= SECRETS
    for objects in BUILDS.values():
        for pod in pod_specs(objects).values():
            for container in containers(pod):
                for variable in container.get("env", []):
                    ref = variable.get("valueFrom", {}).get("secretKeyRef")
                    if ref and ref["key"].startswith("CLAUSEMILL_"):
                        assert variable["name"] == ref["key"]  # the setting it names, under its own name
    namespace = {o["metadata"].get("namespace") for o in BUILDS["redis"] if o["kind"] != "Namespace"}
    assert namespace == {SECRET["metadata"]["namespace"]}


def test_every_setting_given_is_a_field_settings_knows_and_secrets_come_only_from_the_secret(
        monkeypatch: pytest.MonkeyPatch) -> None:
    [config_map] = of_kind(BUILDS["redis"], "ConfigMap").values()
    fields = set(Settings.model_fields)
    names = set(config_map["data"])
    secret_words = re.compile(r"PASSWORD|SECRET|TOKEN|AUTH|_URL$|BACKEND")
    for objects in BUILDS.values():
        for pod in pod_specs(objects).values():
            for container in containers(pod):
                for variable in container.get("env", []):
                    if variable["name"].startswith("CLAUSEMILL_"):
                        names.add(variable["name"])
                        if secret_words.search(variable["name"]):
                            assert "secretKeyRef" in variable.get("valueFrom", {}), variable
                assert [r["configMapRef"]["name"] for r in container.get("envFrom", [])] in (
                    [], [config_map["metadata"]["name"]])
    assert sorted(n for n in names if not (n.startswith("CLAUSEMILL_") and n[len("CLAUSEMILL_"):].lower() in fields)) == []
    assert sorted(n for n in config_map["data"] if secret_words.search(n)) == []
    assert not any("@" in value for value in config_map["data"].values())  # no credentials in a URL
    settings = settings_of(config_map, monkeypatch)  # the values parse as Settings' types
    assert {name: str(getattr(settings, name[len("CLAUSEMILL_"):].lower())) for name in config_map["data"]} == {
        name: {"true": "True", "false": "False"}.get(value, value) for name, value in config_map["data"].items()}


def test_every_probe_runs_a_real_command(tmp_path: Path) -> None:
    """A `clausemill` probe is run here, against a fresh and a stale heartbeat; a worker's ping
    names the node its worker starts as; an HTTP probe asks the port and path its process serves."""
    commands = cli_commands()
    health_probes: set[tuple[str, ...]] = set()
    for objects in BUILDS.values():
        for name, container in clausemill_containers(objects):
            args = container["args"]
            assert args[0] in commands, (name, args)
            probes = [container[kind] for kind in ("startupProbe", "readinessProbe", "livenessProbe") if kind in container]
            if name.endswith("-migrate"):
                assert probes == []
                continue
            assert "readinessProbe" in container and "livenessProbe" in container, name
            ports = {p["name"]: p["containerPort"] for p in container.get("ports", [])}
            for probe in probes:
                if "httpGet" in probe:
                    assert ports[probe["httpGet"]["port"]] == int(option(args, "--port")), name
                    assert probe["httpGet"]["path"] == {"serve": "/healthz", "metrics": "/healthz",
                                                        "flower": "/healthcheck"}[args[0]], name
                    continue
                command = probe["exec"]["command"]
                if command[0] == "clausemill":
                    assert command[1] == "health" and command[2] == {"scheduler": "scheduler", "watch": "watcher"}[args[0]]
                    health_probes.add(tuple(command[1:]))
                    continue
                assert command[:2] == ["sh", "-c"] and args[0] == "worker", (name, command)
                ping = re.fullmatch(r"celery -A (\S+) inspect ping --timeout \d+ -d (\w+)@\$\(hostname\)", command[2])
                assert ping, command
                assert (REPO / (ping.group(1).replace(".", "/") + ".py")).is_file()
                assert option(args, "--hostname") == f"{ping.group(2)}@%h" and ping.group(2) == option(args, "--queues")
    assert {probe[1] for probe in health_probes} == set(Process)
    env = base_env(tmp_path / "data")
    for probe in sorted(health_probes):
        write_beat(tmp_path / "data", probe[1])
        fresh = run_cli(list(probe), env, timeout=60)
        assert fresh.returncode == 0, (probe, fresh.stderr)
        write_beat(tmp_path / "data", probe[1], now=time.time() - 3600)
        stale = run_cli(list(probe), env, timeout=60)
        assert stale.returncode == 1 and "last heartbeat" in stale.stderr, (probe, stale.stderr)


def test_services_select_their_deployment_and_volumes_and_configs_exist() -> None:
    for objects in BUILDS.values():
        deployments = of_kind(objects, "Deployment")
        for service in of_kind(objects, "Service").values():
            selected = [d for d in deployments.values()
                        if service["spec"]["selector"].items() <= d["spec"]["template"]["metadata"]["labels"].items()]
            assert len(selected) == 1, service["metadata"]["name"]
            ports = {p["name"] for c in selected[0]["spec"]["template"]["spec"]["containers"] for p in c.get("ports", [])}
            assert {p["targetPort"] for p in service["spec"]["ports"]} <= ports
        for deployment in deployments.values():
            assert deployment["spec"]["selector"]["matchLabels"].items() <= \
                deployment["spec"]["template"]["metadata"]["labels"].items()
        claims, config_maps = of_kind(objects, "PersistentVolumeClaim"), of_kind(objects, "ConfigMap")
        for name, pod in pod_specs(objects).items():
            volumes = {v["name"]: v for v in pod.get("volumes", [])}
            for volume in volumes.values():
                if "persistentVolumeClaim" in volume:
                    assert volume["persistentVolumeClaim"]["claimName"] in claims, name
            for container in containers(pod):
                assert {m["name"] for m in container.get("volumeMounts", [])} <= set(volumes), name
                assert {r["configMapRef"]["name"] for r in container.get("envFrom", [])} <= set(config_maps), name


def test_the_processes_are_docker_composes_on_its_images() -> None:
    ours = {name: s for name, s in COMPOSE.items() if "build" in s}

    def role(args: list[str]) -> tuple[str, str | None]:
        return args[0], option(args, "--queues")

    for objects in BUILDS.values():
        running = [role(c["args"]) for _, c in clausemill_containers(objects)]
        assert sorted(running, key=str) == sorted((role(s["command"]) for s in ours.values()), key=str)
        for name, container in clausemill_containers(objects):
            service = "gpu-worker" if role(container["args"]) == ("worker", "gpu") else "cpu-worker"
            assert container["image"] == ours[service]["image"], name


def test_the_shared_files_are_mounted_where_tasks_and_settings_name_them() -> None:
    """Tasks pass paths: whoever writes or reads a contract's path mounts the shared volume at the
    same place, and the paths the settings and commands name lie on it."""
    objects = BUILDS["redis"]
    [claim] = of_kind(objects, "PersistentVolumeClaim")
    assert of_kind(objects, "PersistentVolumeClaim")[claim]["spec"]["accessModes"] == ["ReadWriteMany"]
    mounts = {}
    for name, pod in pod_specs(objects).items():
        shared = {v["name"] for v in pod.get("volumes", []) if v.get("persistentVolumeClaim", {}).get("claimName") == claim}
        for container in containers(pod):
            mounts[(name, container["name"])] = {m["mountPath"] for m in container.get("volumeMounts", []) if m["name"] in shared}
    [root] = set().union(*mounts.values())
    readers = {role for role, paths in mounts.items() if paths}
    assert readers == {("clausemill-cpu-worker", "worker"), ("clausemill-scheduler", "scheduler"),
                       ("clausemill-watcher", "folders"), ("clausemill-watcher", "watcher"),
                       ("clausemill-review", "review")}
    [config_map] = of_kind(objects, "ConfigMap").values()
    containers_by_name = dict(clausemill_containers(objects))
    named = [config_map["data"]["CLAUSEMILL_NIGHTLY_PATHS"], config_map["data"]["CLAUSEMILL_UPLOAD_INBOX"],
             *containers_by_name["clausemill-watcher"]["args"][1:2], option(containers_by_name["clausemill-watcher"]["args"], "--out"),
             option(containers_by_name["clausemill-scheduler"]["args"], "--out")]
    assert all(Path(path).is_relative_to(root) for path in named), named


def test_every_container_is_bounded_and_unprivileged_on_a_read_only_root() -> None:
    for objects in BUILDS.values():
        [config_map] = of_kind(objects, "ConfigMap").values()
        data_dir = config_map["data"]["CLAUSEMILL_DATA_DIR"]
        for name, pod in pod_specs(objects).items():
            assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] != 0, name
            for container in containers(pod):
                where = (name, container["name"])
                for bound in ("requests", "limits"):
                    assert {"cpu", "memory"} <= set(container["resources"][bound]), where
                assert container["securityContext"] == {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                                        "capabilities": {"drop": ["ALL"]}}, where
                writable = {m["mountPath"] for m in container.get("volumeMounts", [])}
                if container in pod["containers"]:
                    assert "/tmp" in writable, where
                    if container["args"][0] not in ("flower", "migrate"):  # the two that keep nothing of their own
                        assert data_dir in writable, where


def test_stopping_lets_the_longest_task_finish(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scaling down or rolling out is a SIGTERM, Celery's warm shutdown: the grace period outlasts
    the longest task's hard limit (with the settings the ConfigMap gives), and the scheduler's stop."""
    objects = BUILDS["redis"]
    [config_map] = of_kind(objects, "ConfigMap").values()
    settings = settings_of(config_map, monkeypatch)
    longest = max(settings.time_limit_s(spec) for spec in STAGES) + HARD_LIMIT_GRACE_S
    deployments = of_kind(objects, "Deployment")
    for name in ("clausemill-cpu-worker", "clausemill-gpu-worker"):
        assert deployments[name]["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] > longest, name
    scheduler = deployments["clausemill-scheduler"]["spec"]
    assert scheduler["template"]["spec"]["terminationGracePeriodSeconds"] > TASK_STOP_S + STOP_DEADLINE_S
    for name in ("clausemill-scheduler", "clausemill-watcher"):  # one at a time, never two overlapping
        assert deployments[name]["spec"]["replicas"] == 1 and deployments[name]["spec"]["strategy"] == {"type": "Recreate"}


def test_docker_compose_lets_the_longest_task_finish() -> None:
    """The same grace periods in docker-compose.yml (`stop_grace_period`; Docker's default is 10 s),
    at the default settings, which its environment does not change."""
    def seconds(duration: str) -> int:
        return sum(int(amount) * {"h": 3600, "m": 60, "s": 1}[unit] for amount, unit in re.findall(r"(\d+)([hms])", duration))

    settings = Settings()
    longest = max(settings.time_limit_s(spec) for spec in STAGES) + HARD_LIMIT_GRACE_S
    assert "TIME_LIMIT" not in json.dumps(COMPOSE)
    for name in ("cpu-worker", "gpu-worker"):
        assert seconds(COMPOSE[name]["stop_grace_period"]) > longest, name
    assert seconds(COMPOSE["scheduler"]["stop_grace_period"]) > TASK_STOP_S + STOP_DEADLINE_S
    assert seconds(COMPOSE["watcher"]["stop_grace_period"]) >= 60


def test_the_gpu_workers_go_to_gpu_nodes_only() -> None:
    pod = pod_specs(BUILDS["redis"])["clausemill-gpu-worker"]
    assert pod["nodeSelector"]
    assert any(t["key"] == "nvidia.com/gpu" and t["effect"] == "NoSchedule" for t in pod["tolerations"])
    [worker] = pod["containers"]
    assert worker["resources"]["limits"]["nvidia.com/gpu"] >= 1
    cpu_pod = pod_specs(BUILDS["redis"])["clausemill-cpu-worker"]
    assert "nodeSelector" not in cpu_pod and "nvidia.com/gpu" not in cpu_pod["containers"][0]["resources"]["limits"]
    assert [c["args"] for c in pod_specs(BUILDS["redis"])["clausemill-migrate"]["containers"]] == [["migrate"]]
