"""Which build of a service answered: its distribution and version
(`nod-claims/0.1.0`) and the API packages it serves (`nod.claims.v1`).

Every gRPC reply carries them in its initial metadata (x-nod-version,
x-nod-api) and every gateway page in its HTTP headers, so an operator sees
what runs where with one call, from outside, during a rolling upgrade too.
"""

from collections.abc import Iterable
from importlib import metadata

VERSION_HEADER = "x-nod-version"
API_HEADER = "x-nod-api"


def build_version(service: str) -> str:
    """`nod-<service>/<version>` from the installed package's metadata."""
    distribution = f"nod-{service}"
    try:
        return f"{distribution}/{metadata.version(distribution)}"
    except metadata.PackageNotFoundError:
        return f"{distribution}/unknown"


def release(service: str) -> str:
    """The installed package's version alone (`0.1.0`): start lines, traces."""
    return build_version(service).rpartition("/")[2]


def api_packages(full_service_names: Iterable[str]) -> str:
    """`nod.claims.v1` for nod.claims.v1.ClaimsService and .VaultService."""
    packages = {name.rpartition(".")[0] for name in full_service_names}
    return ",".join(sorted(packages))


def version_metadata(
    service: str, full_service_names: Iterable[str]
) -> tuple[tuple[str, str], ...]:
    return (
        (VERSION_HEADER, build_version(service)),
        (API_HEADER, api_packages(full_service_names)),
    )
