"""`make run`: PostgreSQL (found or started), keys under var/, migrations,
the demo person's sign-in for the web UI, then every service, the gateway
and the demo stand-ins under one supervisor (honcho's, nodrun/supervisor.py),
the demo person seeded, and where everything is printed. A process that
ends by itself is started again after a back-off, within a limit
(nodrun/restarts.py); Ctrl-C stops everything, and so does any other
termination signal. A private PostgreSQL make run uses (var/pg) is stopped
when it ends. NOD_RUN_TLS=1 runs every gRPC hop over mutual TLS
(nodrun/tls.py).

NOD_RUN_VAR moves var/ (the tests run this set-up in a folder of their own)."""

import os
import pathlib
import subprocess
import sys
from collections.abc import Mapping

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from nodrun import demo, postgres, summary, tls  # noqa: E402
from nodrun import secrets as local_secrets  # noqa: E402
from nodrun.output import OutputWhileRead  # noqa: E402
from nodrun.ports import free_port, port_is_free  # noqa: E402
from nodrun.restarts import Limits  # noqa: E402
from nodrun.services import GATEWAY, SERVICES  # noqa: E402
from nodrun.supervisor import supervisor  # noqa: E402

VAR = pathlib.Path(os.environ.get("NOD_RUN_VAR") or ROOT / "var")
PY = sys.executable
# The demo shop and app live on 127.0.0.2: 127.0.0.1 is the services', which
# the browser never reaches. It may reach 127.0.0.2-127.0.0.31.
DEMO_HOST = "127.0.0.2"
BROWSER_ALLOWED_NETWORKS = "127.0.0.2/31,127.0.0.4/30,127.0.0.8/29,127.0.0.16/28"


def base_env(database_url: str, made: local_secrets.LocalSecrets) -> dict[str, str]:
    tokens = made.service_tokens
    env = {
        **os.environ,
        "NOD_DATABASE_URL": database_url,
        # Scripts and grpcurl present the single token; each service its own.
        "NOD_SERVICE_TOKEN": made.service_token,
        "NOD_SERVICE_TOKENS": ",".join(f"{name}:{token}" for name, token in tokens.items()),
        "NOD_VAULT_KEY": os.environ.get("NOD_VAULT_KEY") or made.vault_key or "",
        # The demo shop and app are local stand-ins for outside parties.
        "NOD_APPROVALS_ALLOWED_NETWORKS": os.environ.get(
            "NOD_APPROVALS_ALLOWED_NETWORKS", "127.0.0.0/8"
        ),
        "NOD_BROWSER_ALLOWED_NETWORKS": os.environ.get(
            "NOD_BROWSER_ALLOWED_NETWORKS", BROWSER_ALLOWED_NETWORKS
        ),
        "PYTHONUNBUFFERED": "1",
        **log_env(os.environ, interactive=sys.stdout.isatty()),
    }
    for service in [*SERVICES, GATEWAY]:
        env[f"NOD_{service.name.upper()}_ADDR"] = service.address
        env[f"NOD_{service.name.upper()}_LISTEN"] = service.listen
        env[f"NOD_{service.name.upper()}_METRICS_LISTEN"] = service.metrics_listen
    return env


def log_env(environ: Mapping[str, str], *, interactive: bool) -> dict[str, str]:
    """How the services print. Their output reaches the person through the
    supervisor's pipes, so each would see a pipe and print JSON: the choice
    is made here instead, from where make run's own output goes. A person
    at a terminal reads aligned, coloured lines (the supervisor puts the
    service's name before each); a pipe or CI gets JSON. NOD_LOG_FORMAT set
    to console or json wins."""
    asked = environ.get("NOD_LOG_FORMAT", "auto")
    fmt = asked if asked != "auto" else "console" if interactive else "json"
    env = {"NOD_LOG_FORMAT": fmt}
    if fmt == "console" and interactive:
        env["NOD_LOG_COLOR"] = environ.get("NOD_LOG_COLOR", "always")
    return env


def own_env(env: dict[str, str], name: str) -> dict[str, str]:
    """One process's environment: its instance id and, with NOD_RUN_TLS,
    its own certificate."""
    own = {**env, "NOD_INSTANCE_ID": f"local-{name}"}
    if tls.enabled():
        own |= tls.env_for(VAR, name)
    return own


def check_ports_free() -> None:
    for service in [*SERVICES, GATEWAY]:
        name = service.name.upper()
        host, _, port = service.listen.rpartition(":")
        if not port_is_free(host, int(port)):
            sys.exit(
                f"nod: port {port} for {service.name} is taken (is nod already running?);"
                f" set NOD_{name}_LISTEN and NOD_{name}_ADDR to move it"
            )
        host, _, port = service.metrics_listen.rpartition(":")
        if not port_is_free(host, int(port)):
            sys.exit(
                f"nod: port {port} for {service.name}'s metrics is taken (is nod already"
                f" running?); set NOD_{name}_METRICS_LISTEN to move it"
            )


def run_step(env: dict[str, str], argv: list[str]) -> None:
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{done.stdout}{done.stderr}".rstrip())


def prepare(env: dict[str, str]) -> None:
    """Every schema to head and the demo person able to sign in to the web
    UI (nodrun/prepare.py, one process), with the password kept in var/
    (made on the first run, readable by its owner only; said when made)."""
    password_file = VAR / summary.PASSWORD_FILE
    existed = password_file.exists()
    prepare = ROOT / "scripts/nodrun/prepare.py"
    run_step(env, [PY, str(prepare), demo.PERSON, str(password_file)])
    if not existed:
        print(local_secrets.web_password_made(demo.PERSON, password_file), flush=True)


def demo_ports() -> tuple[int, int]:
    """Free ports for the demo shop and app, the same as last time when
    those are still free (fewer moves for the seeded items)."""
    saved = VAR / "demo-ports"
    ports = [int(p) for p in saved.read_text().split()] if saved.exists() else []
    if len(ports) != 2 or not all(port_is_free(DEMO_HOST, p) for p in ports):
        ports = [free_port(), free_port()]
        saved.write_text(" ".join(map(str, ports)))
    return ports[0], ports[1]


def main() -> None:
    VAR.mkdir(parents=True, exist_ok=True)
    limits = Limits.from_env(os.environ)
    database_url, source, private = postgres.find_database(VAR)
    print(f"nod: PostgreSQL from {source}", flush=True)
    # Past here, what make run prints goes quiet once nobody reads it, as
    # its processes' lines do (nodrun/output.py).
    output = OutputWhileRead(sys.stdout)
    try:
        returncode = run(database_url, output, limits)
    finally:
        # Nothing but make run uses its private cluster, and one left
        # running would hold its port and memory until `make clean`.
        said = postgres.stopped_with_make_run(VAR) if private else None
        if said:
            print(said, file=output, flush=True)
    sys.exit(returncode)


def run(database_url: str, output: OutputWhileRead, limits: Limits) -> int:
    """Everything but the database: make run's exit status."""
    made = local_secrets.ensure(VAR, vault_key_given=bool(os.environ.get("NOD_VAULT_KEY")))
    for line in made.made:
        print(line, flush=True)
    env = base_env(database_url, made)
    check_ports_free()
    if tls.enabled():
        # The operator's too: nodctl beside make run is a caller of its own.
        names = [service.name for service in [*SERVICES, GATEWAY]]
        tls.ensure_certificates(VAR, [*names, "operator"])
    prepare(env)
    shop_port, app_port = demo_ports()
    shop_url, app_url = f"http://{DEMO_HOST}:{shop_port}", f"http://{DEMO_HOST}:{app_port}"

    manager = supervisor(output=output, json_lines=env["NOD_LOG_FORMAT"] == "json", limits=limits)
    for service in [*SERVICES, GATEWAY]:
        manager.add(service.name, [PY, "-m", service.module, "serve"], own_env(env, service.name))
    account = f"{demo.SHOP_USERNAME}:{demo.SHOP_PASSWORD}:{demo.SHOP_TOTP_SEED}"
    shop = ["--host", DEMO_HOST, "--port", str(shop_port), "--account", account]
    manager.add("shop", [PY, "-m", "nod_demo.shop", *shop], env)
    app = ["--host", DEMO_HOST, "--port", str(app_port)]
    manager.add("app", [PY, "-m", "nod_demo.webhook_app", *app], env)
    # The set-up is a process of its own, not a thread: honcho forks this
    # process for each child, and a fork taken while another thread holds a
    # lock (gRPC's, stdout's) leaves a child stuck before it ever starts.
    # It seeds what the gateway would: with TLS, as the gateway. It runs
    # once and is not restarted: it waits for every service, through their
    # restarts, and says if it did not finish (the services keep running).
    ready = subprocess.Popen(
        [PY, str(ROOT / "scripts/nodrun/ready.py"), shop_url, app_url, str(VAR)],
        env=own_env(env, GATEWAY.name),
    )
    try:
        manager.loop()
    finally:
        if ready.poll() is None:
            ready.terminate()
    return int(manager.returncode or 0)


if __name__ == "__main__":
    main()
