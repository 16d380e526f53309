"""What `make run` prints once everything is up: where things are and how
to try the demo tasks."""

import pathlib

from nodrun import demo
from nodrun.services import BY_NAME, GATEWAY, SERVICES

# The demo person's web UI password, under var/.
PASSWORD_FILE = "web-password"

GRPCURL = '.venv/bin/grpcurl -plaintext -H "authorization: Bearer $(cat var/service-token)"'
# Under NOD_RUN_TLS: the gateway's certificate (it may call every tasks
# method), the server checked for the name of the service called.
GRPCURL_TLS = (
    ".venv/bin/grpcurl -cacert var/tls/ca.pem -cert var/tls/gateway.pem"
    " -key var/tls/gateway-key.pem -authority tasks"
)


def text(
    shop_url: str, app_url: str, var: pathlib.Path, person_id: str, *, tls: bool = False
) -> str:
    """person_id: the demo person's, which the services know them by."""
    tasks = BY_NAME["tasks"].address
    lines = [
        "",
        "nod is up.",
        f"  Open http://{GATEWAY.address}/ and sign in as {demo.PERSON} with the password in"
        f" {var / PASSWORD_FILE}",
        "  (the demo tasks are on the first page; docs/TRYING.md walks through them).",
        "  services:",
    ]
    lines += [
        f"    {s.name:<10} {s.address}  metrics: http://{s.metrics_listen}/metrics"
        for s in SERVICES
    ]
    lines.append(f"    {GATEWAY.name:<10} metrics: http://{GATEWAY.metrics_listen}/metrics")
    if tls:
        lines.append(f"  every gRPC hop is mutual TLS; its CA and certificates: {var / 'tls'}")
        lines.append(
            "  nodctl presents the operator's certificate: NOD_RUN_TLS=1 .venv/bin/nodctl health"
        )
    lines += [
        f"  demo shop: {shop_url}  (the demo person {demo.PERSON} has a saved login for it;"
        f" one-time codes come from the seed {demo.SHOP_TOTP_SEED})",
        f"  demo app:  {app_url}  (lists every message it received)",
        "  Or call the services yourself, e.g.:",
        f"    {GRPCURL_TLS if tls else GRPCURL} -H 'x-nod-user: {person_id}' \\",
        '      -d \'{"text": "Buy the desk lamp at the demo shop"}\' \\',
        f"      {tasks} nod.tasks.v1.TasksService/StartTask",
        "  Ctrl-C stops everything.",
        "",
    ]
    return "\n".join(lines)
