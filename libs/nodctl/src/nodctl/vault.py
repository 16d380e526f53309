"""nodctl vault reseal: every saved item and private entry (the claims
service's) and every connected app's credentials (the approvals
service's) re-sealed under the newest key in NOD_VAULT_KEY, so an older
key can be taken out of it (each service's admin Reseal, the operator's
alone). The claims service goes first, then the approvals service.

nodctl vault drop-unreadable: what the services hold sealed under keys
that are lost for good, dropped. A service whose database holds such
values refuses to start, so there is no service to call: nodctl runs each
service's own one-shot command instead (`python -m nod_claims
drop-unreadable`, then nod_approvals'), with the same NOD_* environment,
and that command decides what dropping means for its tables. nodctl
imports no service; it only starts its command."""

import asyncio
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import grpc

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.approvals.v1 import approvals_pb2_grpc
from nod.claims.v1 import claims_pb2 as claims
from nod.claims.v1 import claims_pb2_grpc
from nod_gateway.peers import ServiceCallFailed
from nodctl.output import Failed, emit, say, warn
from nodctl.parts import Parts
from nodctl.settings import NodctlSettings, names_a_token, vault_key_env
from nodkit.client import NodRpcError, call_metadata

COLUMNS = ("service", "table", "resealed", "already_current", "unreadable", "key_id")


@dataclass
class Totals:
    service: str
    table: str
    resealed: int
    already_current: int
    unreadable: int
    key_id: str


def _streams(parts: Parts, batch_size: int) -> list[tuple[str, Any]]:
    """Each service's re-seal, to be read in turn."""
    meta = call_metadata(parts.peers.token)
    vault = claims_pb2_grpc.VaultAdminServiceStub(parts.peers.channels["claims"])
    apps = approvals_pb2_grpc.ApprovalsAdminServiceStub(parts.peers.channels["approvals"])
    return [
        (
            "claims",
            lambda: vault.Reseal(claims.ResealRequest(batch_size=batch_size), metadata=meta),
        ),
        (
            "approvals",
            lambda: apps.Reseal(approvals.ResealRequest(batch_size=batch_size), metadata=meta),
        ),
    ]


async def reseal(parts: Parts, batch_size: int, *, as_json: bool, progress: bool) -> int:
    totals: list[Totals] = []
    for service, stream in _streams(parts, batch_size):
        try:
            async for reply in stream():
                if progress and not reply.table_done:
                    warn(f"{service} {reply.table}: {reply.resealed} resealed so far")
                if reply.table_done:
                    totals.append(
                        Totals(
                            service,
                            reply.table,
                            reply.resealed,
                            reply.already_current,
                            reply.unreadable,
                            reply.key_id,
                        )
                    )
        except grpc.aio.AioRpcError as error:
            # Each batch was committed as it went: running again goes on from there.
            raise ServiceCallFailed(service, NodRpcError(error), changes=True) from None
    emit([asdict(t) for t in totals], COLUMNS, as_json=as_json, empty="")
    unreadable = [t for t in totals if t.unreadable]
    if unreadable:
        where = ", ".join(f"{t.service} {t.table}" for t in unreadable)
        warn(
            f"{sum(t.unreadable for t in unreadable)} row(s) open under no key the service has"
            f" ({where}): they were left as they are; keep the key they were sealed with"
            " (see that service's log)"
        )
        return 1
    return 0


# Each sealing service, in the order its command runs.
SEALING_SERVICES = ("claims", "approvals")
DROPPED_COLUMNS = ("service", "table", "kind", "rows", "action")


def _service_env(settings: NodctlSettings) -> dict[str, str]:
    """nodctl's environment, with make run's vault key and the operator's
    token where the environment names none (beside make run, from the
    checkout): the service's settings want a key ring and a credential."""
    keys = vault_key_env()
    if keys is None:
        raise Failed(
            "NOD_VAULT_KEY is not set: the services' key ring is needed, so that no key they"
            " still have is dropped (set NOD_VAULT_KEY or NOD_VAULT_KEY_FILE as the claims and"
            " approvals services have it)"
        )
    env = {**os.environ, **keys}
    if not names_a_token():
        if settings.service_tokens is not None:
            env["NOD_SERVICE_TOKENS"] = settings.service_tokens.get_secret_value()
        elif settings.service_token is not None:
            env["NOD_SERVICE_TOKEN"] = settings.service_token.get_secret_value()
    return env


async def _run_drop(service: str, key_ids: Sequence[str], env: dict[str, str]) -> list[dict]:
    module = f"nod_{service}"
    if importlib.util.find_spec(module) is None:
        keys = " ".join(f"--key {key_id}" for key_id in key_ids)
        raise Failed(
            f"the {service} service is not installed beside nodctl: run `nod-{service}"
            f" drop-unreadable {keys}` where it runs, with its settings"
        )
    flags = [f"--key={key_id}" for key_id in key_ids]
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", module, "drop-unreadable", *flags, "--json",
        env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await process.communicate()
    if process.returncode != 0:
        lines = [line for line in err.decode(errors="replace").splitlines() if line.strip()]
        said = lines[-1] if lines else f"nod-{service} drop-unreadable exited {process.returncode}"
        raise Failed(said)
    return [{"service": service, **row} for row in json.loads(out)["dropped"]]


async def drop_unreadable(
    settings: NodctlSettings, key_ids: Sequence[str], services: Sequence[str], *, as_json: bool
) -> int:
    """Each service's drop in turn, each one transaction; what they dropped."""
    env = _service_env(settings)
    dropped: list[dict] = []
    for service in services:
        try:
            dropped += await _run_drop(service, key_ids, env)
        except Failed as failed:
            if not dropped:
                raise
            # The services before it committed theirs: a second run finds
            # nothing left there and goes on to this one.
            _show_dropped(dropped, key_ids, as_json=as_json)
            raise Failed(f"{failed.message}; run it again once that is fixed") from None
    _show_dropped(dropped, key_ids, as_json=as_json, services=services)
    return 0


def _show_dropped(
    dropped: list[dict],
    key_ids: Sequence[str],
    *,
    as_json: bool,
    services: Sequence[str] = SEALING_SERVICES,
) -> None:
    keys = ", ".join(key_ids)
    if not as_json and dropped:
        say(f"Dropped what was sealed with vault key(s) {keys}:")
    where = " or ".join(services)
    empty = f"Nothing is sealed with vault key(s) {keys} in {where}: nothing dropped."
    emit(dropped, DROPPED_COLUMNS, as_json=as_json, empty=empty)
