"""`make run`: PostgreSQL (found or started), keys under var/, migrations,
then every service and the demo stand-ins under one supervisor (honcho).
Ctrl-C stops everything."""

import asyncio
import os
import pathlib
import socket
import subprocess
import sys
import threading

from honcho.manager import Manager
from pydantic import SecretStr

ROOT = pathlib.Path(__file__).resolve().parent.parent
# honcho forks while the set-up thread already talks gRPC; nothing here needs
# gRPC in a child.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
sys.path.insert(0, str(ROOT / "scripts"))

from nodrun import demo, postgres  # noqa: E402
from nodrun import secrets as local_secrets  # noqa: E402

from nodtest.processes import free_port, wait_until_serving  # noqa: E402

VAR = ROOT / "var"
PY = sys.executable
# name, module, default port (DESIGN.md section 5)
SERVICES = [
    ("claims", "nod_claims", 50051),
    ("approvals", "nod_approvals", 50052),
    ("payments", "nod_payments", 50053),
    ("browser", "nod_browser", 50054),
]
MIGRATED = ("nod_claims", "nod_approvals", "nod_payments")


def address(name: str, port: int) -> str:
    return os.environ.get(f"NOD_{name.upper()}_ADDR", f"127.0.0.1:{port}")


def base_env(database_url: str) -> dict[str, str]:
    env = {
        **os.environ,
        "NOD_DATABASE_URL": database_url,
        "NOD_SERVICE_TOKEN": local_secrets.service_token(VAR),
        "NOD_VAULT_KEY": os.environ.get("NOD_VAULT_KEY") or local_secrets.vault_key(VAR),
        "NOD_CLAIMS_ADDR": address("claims", 50051),
        "PYTHONUNBUFFERED": "1",
    }
    for name, _, port in SERVICES:
        env.setdefault(f"NOD_{name.upper()}_LISTEN", address(name, port))
    return env


def check_ports_free(env: dict[str, str]) -> None:
    for name, _, _ in SERVICES:
        host, _, port = env[f"NOD_{name.upper()}_LISTEN"].rpartition(":")
        if not port_is_free(host, int(port)):
            sys.exit(
                f"nod: port {port} for {name} is taken (is nod already running?);"
                f" set NOD_{name.upper()}_LISTEN and NOD_{name.upper()}_ADDR to move it"
            )


def migrate(env: dict[str, str]) -> None:
    for module in MIGRATED:
        done = subprocess.run(
            [PY, "-m", module, "migrate"], env=env, capture_output=True, text=True
        )
        if done.returncode != 0:
            sys.exit(f"{module} migrate failed:\n{done.stdout}{done.stderr}")


def demo_ports() -> tuple[int, int]:
    """Free ports for the demo shop and app, the same as last time when
    those are still free: the saved login and the webhook account point there."""
    saved = VAR / "demo-ports"
    ports = [int(p) for p in saved.read_text().split()] if saved.exists() else []
    if len(ports) != 2 or not all(port_is_free("127.0.0.1", p) for p in ports):
        ports = [free_port(), free_port()]
        saved.write_text(" ".join(map(str, ports)))
    return ports[0], ports[1]


def port_is_free(host: str, port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def set_up_demo(env: dict[str, str], shop_url: str, app_url: str) -> None:
    """Runs beside the supervisor: waits for the services, seeds the demo
    person, then says where everything is."""

    async def go() -> None:
        for name, _, port in SERVICES:
            await wait_until_serving(address(name, port), timeout_s=90)
        await demo.seed(
            address("claims", 50051),
            address("approvals", 50052),
            SecretStr(env["NOD_SERVICE_TOKEN"]),
            shop_url,
            app_url,
        )

    try:
        asyncio.run(go())
    except Exception as error:  # noqa: BLE001 - reported; the services keep running
        print(f"\nnod: the demo set-up did not finish: {error!r}\n", flush=True)
        return
    print(summary(shop_url, app_url), flush=True)


def summary(shop_url: str, app_url: str) -> str:
    lines = ["", "nod is up.", "  services:"]
    lines += [f"    {name:<10} {address(name, port)}" for name, _, port in SERVICES]
    lines += [
        f"  demo shop: {shop_url}  (sign in as {demo.SHOP_USERNAME} / {demo.SHOP_PASSWORD},"
        f" one-time codes from seed {demo.SHOP_TOTP_SEED})",
        f"  demo app:  {app_url}  (lists every message it received)",
        "  The web UI comes with the gateway; until then, call the services, e.g.:",
        f"    .venv/bin/python scripts/nodcall.py {address('claims', 50051)}"
        f" nod.claims.v1.VaultService/ListItems '{{}}' --user {demo.PERSON}",
        "  Ctrl-C stops everything.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    VAR.mkdir(exist_ok=True)
    database_url, source = postgres.find_database(VAR)
    print(f"nod: PostgreSQL from {source}", flush=True)
    env = base_env(database_url)
    check_ports_free(env)
    migrate(env)
    shop_port, app_port = demo_ports()
    shop_url, app_url = f"http://127.0.0.1:{shop_port}", f"http://127.0.0.1:{app_port}"

    manager = Manager()
    for name, module, _ in SERVICES:
        manager.add_process(
            name, f"{PY} -m {module} serve", env={**env, "NOD_INSTANCE_ID": f"local-{name}"}
        )
    account = f"{demo.SHOP_USERNAME}:{demo.SHOP_PASSWORD}:{demo.SHOP_TOTP_SEED}"
    manager.add_process(
        "shop", f"{PY} -m nod_demo.shop --port {shop_port} --account {account}", env=env
    )
    manager.add_process("app", f"{PY} -m nod_demo.webhook_app --port {app_port}", env=env)
    threading.Thread(target=set_up_demo, args=(env, shop_url, app_url), daemon=True).start()
    manager.loop()
    sys.exit(manager.returncode)


if __name__ == "__main__":
    main()
