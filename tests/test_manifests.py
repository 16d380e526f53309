"""What the Kubernetes manifests say and what the code does can't drift apart:
every migration Job, every Deployment and every pod of each StatefulSet of
deploy/k8s (the base and the dev overlay, rendered) runs here as its
container would (tests/pods.py:
the image's entrypoint from the service's own wheels, the ConfigMap and the
container's env, its Secrets as files at the paths it mounts them), and is
probed the way the kubelet probes it: gRPC health on the probe's port and
service name, HTTP GET, TCP. Then each stops on SIGTERM within its
terminationGracePeriodSeconds, as a rolling restart stops it."""

import asyncio
import contextlib
import json
import pathlib
import subprocess
import time

import grpc
import httpx
import pytest
import trustme
from grpc_health.v1 import health_pb2, health_pb2_grpc

from nodkit.client import open_channel
from nodkit.crypto import new_key_setting
from nodkit.settings import ServiceSettings
from nodkit.tls import Tls
from nodtest.database import create_test_database, drop_test_database
from scripts.nodeploy.manifests import Manifest, find, ordinals, render

from .pods import Pod, bare_pod, pods_of
from .wheelhouse import REPOSITORY, Running, run_once, start

pytestmark = pytest.mark.slow

KUSTOMIZATIONS = {
    "base": REPOSITORY / "deploy" / "k8s" / "base",
    "dev": REPOSITORY / "deploy" / "k8s" / "overlays" / "dev",
}
OPERATOR = REPOSITORY / "deploy" / "k8s" / "operator"
CALLERS = ["claims", "approvals", "payments", "browser", "tasks", "gateway"]
PROBE_TIMEOUT_S = 90.0


def of_kind(manifests: list[Manifest], kind: str) -> list[Manifest]:
    return [m for m in manifests if m["kind"] == kind]


def workloads(manifests: list[Manifest]) -> dict[str, Manifest]:
    """The services' and the gateway's: Deployments and StatefulSets, by name."""
    found = of_kind(manifests, "Deployment") + of_kind(manifests, "StatefulSet")
    return {workload["metadata"]["name"]: workload for workload in found}


def secrets_for(database_url: str) -> dict[str, dict[str, str]]:
    """The Secrets docs/DEPLOYING.md tells an operator to create, by name and key."""
    tokens = ",".join(f"{name}:{name}-token-{'x' * 24}" for name in CALLERS)
    secrets = {
        "nod-service-tokens": {"tokens": tokens},
        "nod-vault-key": {"vault-key": new_key_setting()},
    }
    for name in ["claims", "approvals", "payments", "tasks", "gateway"]:
        secrets[f"nod-{name}-database"] = {"url": database_url}
    return secrets | tls_secrets()


def tls_secrets() -> dict[str, dict[str, str]]:
    """nod-<name>-tls for each, as a cert-manager Certificate writes it:
    the certificate (CN and DNS name the service's), its key, the CA."""
    authority = trustme.CA(organization_name="nod manifests test CA")
    ca = authority.cert_pem.bytes().decode()
    secrets = {}
    for name in [*CALLERS, "operator"]:
        leaf = authority.issue_cert(name, common_name=name)
        secrets[f"nod-{name}-tls"] = {
            "tls.crt": leaf.cert_chain_pems[0].bytes().decode(),
            "tls.key": leaf.private_key_pem.bytes().decode(),
            "ca.crt": ca,
        }
    return secrets


async def health_over(pod: Pod, tls: Tls | None) -> str:
    """The pod's gRPC port asked for its health, over TLS presenting `tls`
    or in plaintext: the status, or the error's code."""
    service = pod.name.removeprefix("nod-").split("-")[0]
    async with open_channel(f"127.0.0.1:{pod.loopback('grpc')}", tls=tls, peer=service) as channel:
        try:
            reply = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=5
            )
        except grpc.aio.AioRpcError as error:
            return error.code().name
    return health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)


def tls_of(secret: dict[str, str]) -> Tls:
    return Tls(secret["tls.crt"].encode(), secret["tls.key"].encode(), secret["ca.crt"].encode())


async def passes(pod: Pod, probe: dict) -> bool:
    try:
        if "grpc" in probe:
            address = f"127.0.0.1:{pod.loopback(probe['grpc']['port'])}"
            async with grpc.aio.insecure_channel(address) as channel:
                reply = await health_pb2_grpc.HealthStub(channel).Check(
                    health_pb2.HealthCheckRequest(service=probe["grpc"].get("service", "")),
                    timeout=1,
                )
            return reply.status == health_pb2.HealthCheckResponse.SERVING
        if "httpGet" in probe:
            port = pod.loopback(probe["httpGet"]["port"])
            url = f"http://127.0.0.1:{port}{probe['httpGet']['path']}"
            async with httpx.AsyncClient(timeout=1) as client:
                return 200 <= (await client.get(url)).status_code < 400
        if "tcpSocket" in probe:
            port = pod.loopback(probe["tcpSocket"]["port"])
            _, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 1)
            writer.close()
            return True
    except (grpc.aio.AioRpcError, httpx.HTTPError, OSError, TimeoutError):
        return False
    raise AssertionError(f"{pod.name}: a probe of a kind this test doesn't know: {probe}")


async def until_passing(pod: Pod, kind: str, process: Running) -> None:
    probe = pod.container[kind]
    deadline = time.monotonic() + PROBE_TIMEOUT_S
    while not await passes(pod, probe):
        if process.process.poll() is not None:
            pytest.fail(f"{pod.name} ended before its {kind} passed:\n{process.log_text()}")
        if time.monotonic() > deadline:
            pytest.fail(f"{pod.name}'s {kind} never passed: {probe}\n{process.log_text()}")
        await asyncio.sleep(0.3)


def stop_budget_s(pod: Pod, env: dict[str, str]) -> float:
    """What SIGTERM may take: terminationGracePeriodSeconds less preStop's sleep."""
    grace = float(
        env.get("NOD_SHUTDOWN_GRACE_S", ServiceSettings.model_fields["shutdown_grace_s"].default)
    )
    pre_stop = (
        pod.container.get("lifecycle", {}).get("preStop", {}).get("sleep", {}).get("seconds", 0)
    )
    budget = pod.spec.get("terminationGracePeriodSeconds", 30) - pre_stop
    assert budget > grace, f"{pod.name}: {budget}s after preStop is not above its {grace}s grace"
    return budget


# The first test to need them builds every service's venv (tests/wheelhouse.py).
@pytest.mark.timeout(900)
@pytest.mark.parametrize("kustomization", list(KUSTOMIZATIONS))
async def test_every_pod_starts_as_its_manifest_says_and_passes_its_probes(
    kustomization, wheelhouse, tmp_path
):
    manifests = render(KUSTOMIZATIONS[kustomization])
    database_url = create_test_database()
    secrets = secrets_for(database_url)
    pods = {
        pod.name: pod
        for workload in workloads(manifests).values()
        for pod in pods_of(workload, tmp_path)
    }
    for pod in pods.values():
        pod.allocate_ports()
    running = {}
    try:
        for job in of_kind(manifests, "Job"):
            pod = Pod(job, tmp_path / job["metadata"]["name"])
            installed = await asyncio.to_thread(wheelhouse.install, pod.image.package)
            pod.lay_out(secrets)
            env = pod.environment(manifests, installed, pods)
            await asyncio.to_thread(run_once, pod.command(env), env, pod.root)
        for name, pod in pods.items():
            installed = await asyncio.to_thread(wheelhouse.install, pod.image.package)
            pod.lay_out(secrets)
            env = pod.environment(manifests, installed, pods)
            process = start(pod.command(env), env, pod.root, pod.root / "log")
            running[name] = (pod, env, process)
        for pod, _, process in running.values():
            for kind in ("readinessProbe", "livenessProbe"):
                await until_passing(pod, kind, process)
        # Mutual TLS on the gRPC ports: a caller with a certificate from the
        # Secrets' CA is answered; one without TLS isn't answered at all.
        gateway = tls_of(secrets["nod-gateway-tls"])
        for name, (pod, _, _) in running.items():
            if name.startswith("nod-gateway"):
                continue
            assert await health_over(pod, gateway) == "SERVING", name
            assert await health_over(pod, None) == "UNAVAILABLE", name
        await nodctl_as_its_pod_runs_it(manifests, pods, secrets, wheelhouse, tmp_path)
        for name, (pod, env, process) in running.items():
            budget = stop_budget_s(pod, env)
            began = time.monotonic()
            process.stop(timeout_s=budget)
            took = time.monotonic() - began
            assert took < budget, f"{name} took {took:.1f}s to stop, over {budget}s"
            assert "shutting_down" in process.log_text() or "Shutting down" in process.log_text()
    finally:
        for _, _, process in running.values():
            with contextlib.suppress(Exception):
                process.stop(timeout_s=5)
        drop_test_database(database_url)


async def nodctl_as_its_pod_runs_it(manifests, pods, secrets, wheelhouse, root) -> None:
    """deploy/k8s/operator's pod: nodctl from the gateway's image, named by
    the operator's certificate alone, reaches every service and the gateway
    and lists what a person has (the services' list calls, as the operator)."""
    (manifest,) = of_kind(render(OPERATOR), "Pod")
    pod = bare_pod(manifest, root)
    installed = await asyncio.to_thread(wheelhouse.install, pod.image.package)
    pod.lay_out(secrets)
    env = pod.environment(manifests, installed, pods)
    assert not [key for key in env if "TOKEN" in key], env
    nodctl = installed.command("nodctl")

    def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
        return subprocess.run(
            [*nodctl, *args], env=env, cwd=pod.root, input=stdin, capture_output=True,
            text=True, timeout=120,
        )  # fmt: skip

    health = await asyncio.to_thread(run, "health", "--json")
    assert health.returncode == 0, (health.stdout, health.stderr)
    services = {row["service"] for row in json.loads(health.stdout)}
    assert services == set(CALLERS), services
    added = await asyncio.to_thread(run, "people", "add", "ada", "--password-stdin", stdin="p" * 16)
    assert added.returncode == 0, added.stderr
    listed = await asyncio.to_thread(run, "uncertain", "--json")
    assert (listed.returncode, json.loads(listed.stdout)) == (0, []), listed.stderr


@pytest.mark.parametrize("kustomization", list(KUSTOMIZATIONS))
def test_the_manifests_hold_what_the_services_need(kustomization):
    """What a pod can't show by answering its probes."""
    manifests = render(KUSTOMIZATIONS[kustomization])
    by_name = workloads(manifests)
    assert set(by_name) == {f"nod-{name}" for name in CALLERS}
    # The browser alone is a StatefulSet (its replicas are called one by one).
    stateful = {name for name, workload in by_name.items() if workload["kind"] == "StatefulSet"}
    assert stateful == {"nod-browser"}
    jobs = {j["metadata"]["name"] for j in of_kind(manifests, "Job")}
    assert jobs == {f"nod-{name}-migrate" for name in CALLERS if name != "browser"}
    # A Job can't take the next release's image: each removes itself soon
    # after it ends, so the next apply makes it anew.
    for job in of_kind(manifests, "Job"):
        assert 0 < job["spec"]["ttlSecondsAfterFinished"] <= 3600, job["metadata"]["name"]
    budgets = {p["metadata"]["name"] for p in of_kind(manifests, "PodDisruptionBudget")}
    assert budgets == set(by_name)
    for name, workload in by_name.items():
        pod = Pod(workload, pathlib.Path("/nowhere"))
        replicas = workload["spec"]["replicas"]
        # Two of each in the base; the dev overlay keeps one of everything.
        assert replicas == (2 if kustomization == "base" else 1), name
        container = pod.container
        env = {variable["name"]: variable for variable in container["env"]}
        assert env["NOD_INSTANCE_ID"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
        assert "/tmp" in pod.mounts() and "emptyDir" in pod.mounts()["/tmp"]
        context = container["securityContext"]
        assert context["readOnlyRootFilesystem"] and not context["allowPrivilegeEscalation"]
        assert context["capabilities"]["drop"] == ["ALL"]
        assert pod.spec["securityContext"]["runAsNonRoot"]
        assert pod.spec["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
        # Prometheus finds the pod by its annotations and scrapes the port
        # the service serves /metrics on.
        metrics_port = pod.port_number("metrics")
        annotations = workload["spec"]["template"]["metadata"]["annotations"]
        assert annotations["prometheus.io/scrape"] == "true", name
        assert annotations["prometheus.io/port"] == str(metrics_port), name
        assert annotations["prometheus.io/path"] == "/metrics", name
        short = name.removeprefix("nod-").upper()
        assert env[f"NOD_{short}_METRICS_LISTEN"]["value"] == f"0.0.0.0:{metrics_port}", name
        for variable in env.values():
            if variable["name"].endswith("_FILE"):
                mount = pathlib.PurePosixPath(variable["value"]).parent
                assert "secret" in pod.mounts()[str(mount)], variable
        # Mutual TLS by default: its own certificate, and (a server) callers
        # without one refused.
        tls = pod.mounts()["/etc/nod/tls"]["secret"]["secretName"]
        assert tls == f"{name}-tls", name
        assert env["NOD_TLS_CERT_FILE"]["value"] == "/etc/nod/tls/tls.crt", name
        if name != "nod-gateway":
            assert env["NOD_TLS_REQUIRE_CLIENT_CERT"]["value"] == "true", name


@pytest.mark.parametrize("kustomization", list(KUSTOMIZATIONS))
def test_the_operators_pod_is_let_in_to_every_service(kustomization):
    """nodctl's pod (deploy/k8s/operator) reaches each service's gRPC port
    through its network policy, and holds no service token."""
    manifests = render(KUSTOMIZATIONS[kustomization])
    for name, workload in workloads(manifests).items():
        if name == "nod-gateway":
            continue
        port = Pod(workload, pathlib.Path("/nowhere")).port_number("grpc")
        policy = find(manifests, "NetworkPolicy", name)
        let_in = [
            peer["podSelector"]["matchLabels"].get("app.kubernetes.io/name")
            for rule in policy["spec"]["ingress"]
            if {"port": port} in rule.get("ports", [])
            for peer in rule.get("from", [])
            if "podSelector" in peer
        ]
        assert "nod-operator" in let_in, name
    (operator,) = of_kind(render(OPERATOR), "Pod")
    secrets = {v["secret"]["secretName"] for v in operator["spec"]["volumes"] if "secret" in v}
    assert secrets == {"nod-operator-tls", "nod-gateway-database"}


@pytest.mark.parametrize("kustomization", list(KUSTOMIZATIONS))
def test_each_browser_replica_is_listed_by_its_stable_address(kustomization):
    """A session lives in one browser replica's Chromium, so the tasks
    service calls each replica by its own name: NOD_BROWSER_ADDR lists every
    pod of the StatefulSet, `<statefulset>-<ordinal>.<serviceName>:<grpc port>`,
    as many as it has replicas, and nothing else."""
    manifests = render(KUSTOMIZATIONS[kustomization])
    browser = find(manifests, "StatefulSet", "nod-browser")
    spec = browser["spec"]
    assert spec["podManagementPolicy"] == "Parallel"
    labels = spec["template"]["metadata"]["labels"]
    assert spec["selector"]["matchLabels"].items() <= labels.items()
    # The governing Service: headless (so each pod has a DNS name), listing
    # ready pods only, and picking these pods.
    service = find(manifests, "Service", spec["serviceName"])
    assert service["spec"].get("clusterIP") == "None"
    assert service["spec"].get("publishNotReadyAddresses", False) is False
    assert service["spec"]["selector"].items() <= labels.items()
    # Each replica's boot settles its own records: its instance id is its
    # pod's name, which the StatefulSet keeps.
    pod = Pod(browser, pathlib.Path("/nowhere"))
    env = {variable["name"]: variable for variable in pod.container["env"]}
    assert env["NOD_INSTANCE_ID"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
    grpc_port = pod.port_number("grpc")
    config = find(manifests, "ConfigMap", "nod-config")["data"]
    assert config["NOD_BROWSER_LISTEN"] == f"0.0.0.0:{grpc_port}"
    addresses = [address.strip() for address in config["NOD_BROWSER_ADDR"].split(",")]
    assert len(addresses) == spec["replicas"], addresses
    name, governing = browser["metadata"]["name"], spec["serviceName"]
    expected = [f"{name}-{ordinal}.{governing}:{grpc_port}" for ordinal in ordinals(browser)]
    assert addresses == expected
    # The tasks service, which calls the browser, is let through to that port.
    policy = find(manifests, "NetworkPolicy", name)
    callers = [
        peer["podSelector"]["matchLabels"]["app.kubernetes.io/name"]
        for rule in policy["spec"]["ingress"]
        if {"port": grpc_port} in rule.get("ports", [])
        for peer in rule.get("from", [])
        if "podSelector" in peer
    ]
    assert "nod-tasks" in callers


@pytest.mark.parametrize("kustomization", list(KUSTOMIZATIONS))
def test_the_browser_may_reach_public_addresses_dns_and_claims_only(kustomization):
    """The browser's NetworkPolicy fences its egress as its address guard
    does: the cluster's inside is excepted from the public ranges."""
    policy = find(render(KUSTOMIZATIONS[kustomization]), "NetworkPolicy", "nod-browser")
    assert "Egress" in policy["spec"]["policyTypes"]
    rules = policy["spec"]["egress"]
    blocks = [peer["ipBlock"] for rule in rules for peer in rule["to"] if "ipBlock" in peer]
    public = {block["cidr"]: set(block.get("except", [])) for block in blocks}
    assert set(public) == {"0.0.0.0/0", "::/0"}
    inside = {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10"}
    assert inside | {"127.0.0.0/8", "169.254.0.0/16"} <= public["0.0.0.0/0"]
    assert {"::1/128", "fc00::/7", "fe80::/10"} <= public["::/0"]
    named = [
        (peer["podSelector"]["matchLabels"], rule.get("ports"))
        for rule in rules
        for peer in rule["to"]
        if "podSelector" in peer
    ]
    assert ({"app.kubernetes.io/name": "nod-claims"}, [{"port": 50051}]) in named
    assert any(labels == {"k8s-app": "kube-dns"} for labels, _ in named)
    assert len(named) == 2
