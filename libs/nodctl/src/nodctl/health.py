"""nodctl health: each service's grpc.health.v1 status and the build that
answered (the x-nod-version every reply carries, health's included), and
the gateway's /healthz and its x-nod-version header."""

import asyncio
import socket
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from nodctl.output import emit
from nodctl.settings import NodctlSettings
from nodkit.client import open_channel
from nodkit.version import API_HEADER, VERSION_HEADER

SERVING = "SERVING"
COLUMNS = ("service", "address", "status", "version", "api")


@dataclass
class Health:
    service: str
    address: str
    status: str
    version: str = ""
    api: str = ""


async def service_health(settings: NodctlSettings, name: str, address: str) -> Health:
    tls = settings.tls()
    async with open_channel(address, tls=tls, peer=name) as channel:
        call = health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=settings.call_timeout_s
        )
        try:
            reply = await call
        except grpc.aio.AioRpcError as error:
            found = dict(error.initial_metadata() or ())
            status = "UNREACHABLE" if error.code() == grpc.StatusCode.UNAVAILABLE else "ERROR"
            return Health(
                name,
                address,
                f"{status} ({error.code().name}: {error.details() or 'no answer'})",
                str(found.get(VERSION_HEADER, "")),
                str(found.get(API_HEADER, "")),
            )
        found = dict(await call.initial_metadata() or ())
        status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
        return Health(
            name,
            address,
            status,
            str(found.get(VERSION_HEADER, "")),
            str(found.get(API_HEADER, "")),
        )


def gateway_health(settings: NodctlSettings) -> Health:
    base = settings.gateway_base()
    try:
        with urllib.request.urlopen(f"{base}/healthz", timeout=settings.call_timeout_s) as reply:
            return Health("gateway", base, SERVING, reply.headers.get(VERSION_HEADER, ""))
    except urllib.error.HTTPError as error:
        # 503: the gateway answers, its database does not.
        body = error.read().decode(errors="replace").strip()
        version = error.headers.get(VERSION_HEADER, "")
        return Health("gateway", base, f"NOT_SERVING ({error.code}: {body})", version)
    except (OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        return Health("gateway", base, f"UNREACHABLE ({reason})")


DNS = "dns:///"


async def replicas(address: str) -> list[str]:
    """Each replica asked one by one: the entries of a comma list (the
    browser's list names replicas that each hold their own sessions; a list
    of another's, replicas that should all be SERVING), or every address a
    `dns:///NAME:PORT` name resolves to (a headless Service's pods: a
    channel's round_robin would ask only one of them per call). Any other
    address, or a name that resolves to nothing, as given."""
    if not address.startswith(DNS):
        return [part.strip() for part in address.split(",") if part.strip()]
    host, _, port = address[len(DNS) :].rpartition(":")
    host = host.strip("[]")
    try:
        found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return [address]  # asked as given: its row says it can't be reached
    ips = sorted({str(info[4][0]) for info in found})
    return [f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}" for ip in ips] or [address]


async def check(settings: NodctlSettings) -> list[Health]:
    services = [
        service_health(settings, name, replica)
        for name, address in settings.addresses().items()
        for replica in await replicas(address)
    ]
    gateway = asyncio.to_thread(gateway_health, settings)
    return list(await asyncio.gather(*services, gateway))


async def run(settings: NodctlSettings, *, as_json: bool) -> int:
    found = await check(settings)
    emit([asdict(health) for health in found], COLUMNS, as_json=as_json, empty="")
    return 0 if all(health.status == SERVING for health in found) else 1
