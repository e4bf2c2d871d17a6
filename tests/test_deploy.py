"""The deployment files in deploy/, checked offline (no Docker, no cluster):

- every Kubernetes manifest validates against the API's JSON schemas (kubernetes-validate,
  strict: unknown fields are errors), and kustomization.yaml lists them all (and builds,
  where kubectl is installed);
- docker-compose.yml has a persistent Redis, two service replicas and Prometheus;
- the Grafana dashboard and the Prometheus rules use only metric names the service
  really exposes (service/metrics.py), and the dashboard shows every one of them;
- the image runs as a non-root user and checks its health with deploy/healthcheck.py;
- deploy/healthcheck.py answers 0 against a real server and 1 otherwise.
"""

from __future__ import annotations

import fnmatch
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from prometheus_client import REGISTRY
from prometheus_client.metrics import MetricWrapperBase

import service.metrics
from service.redis_server import free_port
from service.server import LIVENESS

REPO = Path(__file__).resolve().parents[1]
DEPLOY = REPO / "deploy"
K8S = DEPLOY / "k8s"
SERVICE = "curia.v1.GameService"
# Native gRPC probes are GA from 1.27: the oldest version the manifests claim to support.
K8S_VERSIONS = ("1.27.0", kubernetes_validate.latest_version())
# Prometheus' own series, allowed in alert rules (never in the dashboard).
PROMETHEUS_SERIES = {"up"}


def yaml_documents(path: Path) -> list[dict[str, Any]]:
    with path.open() as file:
        return [doc for doc in yaml.safe_load_all(file) if doc is not None]


def k8s_manifests() -> list[Path]:
    return sorted(p for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")


# -- (a) Kubernetes manifests -----------------------------------------------------------
def bundled_versions() -> list[str]:
    """The schema versions to validate against, among those the package bundles."""
    bundled = kubernetes_validate.utils.all_versions()
    oldest = bundled[0]
    chosen = []
    for version in K8S_VERSIONS:
        major_minor = tuple(int(part) for part in version.split(".")[:2])
        if major_minor < tuple(int(part) for part in oldest.split(".")[:2]):
            version = oldest  # this kubernetes-validate no longer ships 1.27
        chosen.append(version)
    return sorted(set(chosen))


@pytest.mark.parametrize("path", k8s_manifests(), ids=lambda p: p.name)
def test_kubernetes_manifests_match_the_api_schemas(path: Path) -> None:
    documents = yaml_documents(path)
    assert documents, f"{path.name} holds no document"
    for document in documents:
        name = f"{path.name}: {document.get('kind')} {document.get('metadata', {}).get('name')}"
        assert document.get("metadata", {}).get("namespace") in (None, "curia"), name
        for version in bundled_versions():
            try:
                kubernetes_validate.validate(document, version, strict=True)
            except kubernetes_validate.ValidationError as error:
                pytest.fail(f"{name} is not a valid {version} object: {error}")


def test_the_validator_does_reject_a_wrong_manifest() -> None:
    """A guard against a validator that passes everything (e.g. no schema found)."""
    broken = yaml_documents(K8S / "deployment.yaml")[0]
    probe = broken["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]
    probe["grpc"]["servce"] = probe["grpc"].pop("service")  # a typo: unknown field
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, K8S_VERSIONS[-1], strict=True)


def test_kustomization_lists_every_manifest() -> None:
    (kustomization,) = yaml_documents(K8S / "kustomization.yaml")
    assert kustomization["kind"] == "Kustomization"
    assert sorted(kustomization["resources"]) == [p.name for p in k8s_manifests()]


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="no kubectl here")
def test_kustomization_builds() -> None:
    built = subprocess.run(["kubectl", "kustomize", str(K8S)], capture_output=True,
                           text=True, timeout=60)
    assert built.returncode == 0, built.stderr
    kinds = sorted(doc["kind"] for doc in yaml.safe_load_all(built.stdout) if doc)
    assert kinds == sorted(doc["kind"] for path in k8s_manifests()
                           for doc in yaml_documents(path))


def test_deployment_probes_ports_and_user_fit_the_image() -> None:
    (deployment,) = yaml_documents(K8S / "deployment.yaml")
    assert deployment["kind"] == "Deployment"
    assert deployment["spec"]["replicas"] == 2
    pod = deployment["spec"]["template"]
    spec = pod["spec"]
    (container,) = spec["containers"]
    # readiness follows Redis (out of rotation while it is away); liveness only the process
    assert container["readinessProbe"]["grpc"] == {"port": 50051, "service": SERVICE}
    assert container["livenessProbe"]["grpc"] == {"port": 50051, "service": LIVENESS}
    ports = {port["name"]: port["containerPort"] for port in container["ports"]}
    assert ports == {"grpc": 50051, "metrics": 9100}
    annotations = pod["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/port"] == "9100"
    assert spec["securityContext"]["runAsNonRoot"] is True
    assert spec["securityContext"]["runAsUser"] == dockerfile_uid()
    assert {"requests", "limits"} <= set(container["resources"])
    args = container["args"]
    assert args[:2] == ["curia", "serve"]
    assert args[args.index("--metrics-port") + 1] == "9100"
    assert "--redis-url" not in args  # a password on a command line is world-readable
    env = {item["name"]: item.get("value") for item in container.get("env", [])}
    url = env["CURIA_REDIS_URL"]
    assert url.startswith(("redis://", "rediss://", "redis+cluster://")), url


def test_redis_statefulset_persists_with_append_only() -> None:
    documents = {doc["kind"]: doc for doc in yaml_documents(K8S / "redis.yaml")}
    assert {"StatefulSet", "Service"} <= set(documents)
    statefulset = documents["StatefulSet"]
    (container,) = statefulset["spec"]["template"]["spec"]["containers"]
    command = container.get("command", []) + container.get("args", [])
    assert command[command.index("--appendonly") + 1] == "yes"
    claims = {claim["metadata"]["name"] for claim in statefulset["spec"]["volumeClaimTemplates"]}
    mounts = {mount["name"]: mount["mountPath"] for mount in container["volumeMounts"]}
    assert mounts.keys() & claims, "the data volume is not a volume claim template"


# -- (b) docker compose -----------------------------------------------------------------
def compose_default(text: str) -> str:
    """`${VAR:-default}` as compose would expand it with VAR unset."""
    return re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", text)


def test_compose_has_persistent_redis_two_replicas_and_prometheus() -> None:
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    services = compose["services"]
    assert {"redis", "curia-1", "curia-2", "prometheus"} <= set(services)

    redis = services["redis"]
    assert str(redis["image"]).startswith("redis:7")
    command = redis["command"] if isinstance(redis["command"], list) \
        else shlex.split(redis["command"])
    assert command[command.index("--appendonly") + 1] == "yes"
    volume, _, target = redis["volumes"][0].partition(":")
    assert target == "/data" and volume in compose["volumes"], "redis data not on a volume"

    host_ports = []
    for name in ("curia-1", "curia-2"):
        curia = services[name]
        build = curia["build"]
        assert (DEPLOY / build["context"] / build["dockerfile"]).resolve() == \
            DEPLOY / "Dockerfile", name
        command = [compose_default(part) for part in curia["command"]]
        assert command[:2] == ["curia", "serve"], name
        assert "--redis-url" not in command, name  # never a password on a command line
        url = compose_default(curia["environment"]["CURIA_REDIS_URL"])
        assert url.startswith("redis://redis:"), name
        assert command[command.index("--metrics-port") + 1] == "9100", name
        assert "redis" in curia["depends_on"], name
        assert any(str(part).endswith("healthcheck.py")
                   for part in curia["healthcheck"]["test"]), name
        mapped = {port.split(":")[-1]: port.rsplit(":", 1)[0] for port in curia["ports"]}
        assert set(mapped) == {"50051", "9100"}, name
        host_ports += mapped.values()
    assert len(host_ports) == len(set(host_ports)), "two replicas on one host port"

    prometheus = services["prometheus"]
    assert str(prometheus["image"]).startswith("prom/prometheus")
    assert any(v.startswith("./prometheus.yml:") for v in prometheus["volumes"])
    config = yaml.safe_load((DEPLOY / "prometheus.yml").read_text())
    targets = {target for job in config["scrape_configs"]
               for static in job.get("static_configs", []) for target in static["targets"]}
    assert {"curia-1:9100", "curia-2:9100"} <= targets

    for name, item in services.items():  # every file compose mounts is here
        for volume in item.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (DEPLOY / source).exists(), f"{name} mounts a missing {source}"


# -- (c) metric names -------------------------------------------------------------------
def service_metric_names() -> dict[str, set[str]]:
    """Family name -> the series names it exposes, for every metric of service/metrics.py
    (each one checked to be registered in prometheus_client's default REGISTRY)."""
    registered = {family.name for family in REGISTRY.collect()}
    suffixes = {"counter": ("_total",), "gauge": ("",), "histogram": ("_bucket", "_sum", "_count"),
                "summary": ("", "_sum", "_count"), "info": ("_info",)}
    names: dict[str, set[str]] = {}
    for collector in vars(service.metrics).values():
        if isinstance(collector, MetricWrapperBase):
            for family in collector.describe():
                assert family.name in registered, family.name
                names[family.name] = {family.name + s for s in suffixes[family.type]}
    assert names, "service/metrics.py defines no metric"
    return names


PROMQL_WORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool",
                "and", "or", "unless", "offset", "inf", "nan"}


def promql_metric_names(expr: str) -> set[str]:
    """The metric names an expression selects (a PromQL subset: enough for ours)."""
    expr = re.sub(r"\$\{?\w+\}?", "", expr)  # Grafana variables
    expr = re.sub(r'"(?:[^"\\]|\\.)*"' + r"|'(?:[^'\\]|\\.)*'", "", expr)  # strings
    expr = re.sub(r"\{[^}]*\}|\[[^\]]*\]", "", expr)  # label matchers, ranges
    expr = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", expr)
    expr = re.sub(r"(?<![\w:])\d+(?:\.\d+)?(?:[eE][+-]?\d+)?[a-z]*", "", expr)  # numbers
    names = set()
    for found in re.finditer(r"[A-Za-z_:][\w:]*", expr):
        if expr[found.end():].lstrip().startswith("("):
            continue  # a function
        if found.group().lower() not in PROMQL_WORDS:
            names.add(found.group())
    return names


def dashboard_expressions() -> list[str]:
    dashboard = json.loads((DEPLOY / "grafana" / "curia-dashboard.json").read_text())
    exprs = []

    def walk(panels: list[dict[str, Any]]) -> None:
        for panel in panels:
            exprs.extend(t["expr"] for t in panel.get("targets", []) if t.get("expr"))
            walk(panel.get("panels", []))

    walk(dashboard["panels"])
    for variable in dashboard.get("templating", {}).get("list", []):
        query = variable.get("query")
        query = query.get("query", "") if isinstance(query, dict) else query or ""
        found = re.match(r"\s*(?:label_values|query_result)\((.*)\)\s*$", query)
        if found:  # label_values(metric, label): the first argument is a selector
            exprs.append(re.split(r",\s*(?![^{]*\})", found.group(1))[0])
    return exprs


def rule_expressions() -> list[str]:
    """The alert rules' expressions: prometheus.yml's rule_files, found through the files
    docker-compose.yml mounts into the Prometheus container."""
    config = yaml.safe_load((DEPLOY / "prometheus.yml").read_text())
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    mounted = {}
    for volume in compose["services"]["prometheus"]["volumes"]:
        source, _, target = volume.partition(":")
        if source.startswith("."):
            mounted[target.split(":")[0]] = DEPLOY / source
    exprs = []
    for pattern in config.get("rule_files", []):
        files = [local for target, local in mounted.items() if fnmatch.fnmatch(target, pattern)]
        assert files, f"rule_files {pattern}: no file mounted there"
        for local in files:
            for group in yaml.safe_load(local.read_text())["groups"]:
                exprs += [str(rule["expr"]) for rule in group["rules"]]
    return exprs


def test_promql_name_extraction() -> None:
    assert promql_metric_names(
        'histogram_quantile(0.99, sum by (le, method) (rate(a_bucket{m!="x", i=~"$i"}'
        "[$__rate_interval]))) / ignoring(code) group_left sum(b_total offset 5m) "
        "> 1e-9 and on(x) up == 0") == {"a_bucket", "b_total", "up"}


def test_dashboard_uses_only_and_all_real_metric_names() -> None:
    families = service_metric_names()
    known = set().union(*families.values())
    exprs = dashboard_expressions()
    assert exprs, "the dashboard has no query"
    used: set[str] = set()
    for expr in exprs:
        names = promql_metric_names(expr)
        assert names, f"no metric found in {expr!r}"
        used |= names
    unknown = sorted(used - known)
    assert not unknown, f"the dashboard uses metrics the service does not expose: {unknown}"
    unshown = sorted(name for name, series in families.items() if not series & used)
    assert not unshown, f"service metrics missing from the dashboard: {unshown}"


def test_prometheus_rules_use_only_real_metric_names() -> None:
    known = set().union(*service_metric_names().values()) | PROMETHEUS_SERIES
    unknown = sorted({name for expr in rule_expressions()
                      for name in promql_metric_names(expr)} - known)
    assert not unknown, f"the alert rules use unknown metrics: {unknown}"


# -- (d) Dockerfile ---------------------------------------------------------------------
def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of deploy/Dockerfile, continuation lines joined."""
    text = re.sub(r"\\\n", " ", (DEPLOY / "Dockerfile").read_text())
    instructions = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            instructions.append((keyword.upper(), rest.strip()))
    return instructions


def final_stage() -> list[tuple[str, str]]:
    instructions = dockerfile_instructions()
    last_from = max(i for i, (keyword, _) in enumerate(instructions) if keyword == "FROM")
    return instructions[last_from:]


def dockerfile_uid() -> int:
    users = [rest for keyword, rest in final_stage() if keyword == "USER"]
    assert users, "the image runs as root (no USER)"
    user = users[-1].split(":")[0]
    assert user.isdigit(), "USER should be numeric so Kubernetes runAsNonRoot can check it"
    return int(user)


def test_dockerfile_runs_unprivileged_with_a_grpc_healthcheck() -> None:
    instructions = dockerfile_instructions()
    assert all(rest.startswith("python:3.11-slim")
               for keyword, rest in instructions if keyword == "FROM")
    assert dockerfile_uid() != 0
    stage = final_stage()
    (healthcheck,) = [rest for keyword, rest in stage if keyword == "HEALTHCHECK"]
    command = json.loads(healthcheck.partition("CMD")[2])
    probe = next(part for part in command if part.endswith("healthcheck.py"))
    assert command[command.index("--service") + 1] == SERVICE
    copies = [rest.split() for keyword, rest in stage if keyword == "COPY"]
    assert ["deploy/healthcheck.py", probe] in copies, "the probe is not copied to " + probe
    (cmd,) = [rest for keyword, rest in stage if keyword == "CMD"]
    assert json.loads(cmd) == ["curia", "serve", "--redis-url", "redis://redis:6379/0",
                               "--metrics-port", "9100"]
    exposed = {port for keyword, rest in stage if keyword == "EXPOSE" for port in rest.split()}
    assert {"50051", "9100"} <= exposed
    for keyword, rest in instructions:  # what the build copies from the context exists
        if keyword == "COPY" and not rest.startswith("--from"):
            for source in rest.split()[:-1]:
                assert (REPO / source).exists(), f"COPY {source}: not in the repository"
    ignored = (REPO / ".dockerignore").read_text().split()
    assert not {"README.md", "pyproject.toml", "deploy"} & set(ignored)


# -- (e) the health probe ---------------------------------------------------------------
def probe(address: str, name: str = SERVICE) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(DEPLOY / "healthcheck.py"), "--address", address,
         "--service", name, "--timeout", "2"],
        capture_output=True, text=True, timeout=30, cwd=REPO)


def test_healthcheck_exits_0_on_a_serving_server(server: str) -> None:  # noqa: F811
    for name in (SERVICE, ""):
        answer = probe(server, name)
        assert answer.returncode == 0, answer.stderr
        assert "SERVING" in answer.stdout


def test_healthcheck_exits_1_on_an_unknown_service(server: str) -> None:  # noqa: F811
    answer = probe(server, "no.such.Service")
    assert answer.returncode == 1
    assert "NOT_FOUND" in answer.stderr


def test_healthcheck_exits_1_on_a_closed_port() -> None:
    answer = probe(f"127.0.0.1:{free_port()}")
    assert answer.returncode == 1
    assert "UNAVAILABLE" in answer.stderr
