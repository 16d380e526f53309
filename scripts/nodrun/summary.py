"""What `make run` prints once everything is up: where things are and how
to try the demo tasks."""

from nodrun import demo
from nodrun.services import BY_NAME, SERVICES

GRPCURL = (
    '.venv/bin/grpcurl -plaintext -H "authorization: Bearer $(cat var/service-token)"'
    f" -H 'x-nod-user: {demo.PERSON}'"
)


def text(shop_url: str, app_url: str) -> str:
    tasks = BY_NAME["tasks"].address
    lines = ["", "nod is up.", "  services:"]
    lines += [f"    {s.name:<10} {s.address}" for s in SERVICES]
    lines += [
        f"  demo shop: {shop_url}  (the demo person {demo.PERSON} has a saved login for it;"
        f" one-time codes come from the seed {demo.SHOP_TOTP_SEED})",
        f"  demo app:  {app_url}  (lists every message it received)",
        "  Try a demo task (docs/TRYING.md walks through each step):",
        f'    {GRPCURL} -d \'{{"text": "Buy the desk lamp at the demo shop"}}\' \\',
        f"      {tasks} nod.tasks.v1.TasksService/StartTask",
        "  Ctrl-C stops everything.",
        "",
    ]
    return "\n".join(lines)
