"""What `make run` starts, and where: every service on its default port
(DESIGN.md: claims 50051 ... tasks 50055, the gateway 8080), each movable with
NOD_<SERVICE>_LISTEN and NOD_<SERVICE>_ADDR, and its /metrics beside it
(docs/OPERATING.md: claims 52051 ... tasks 52055, the gateway 9080), movable
with NOD_<SERVICE>_METRICS_LISTEN."""

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Service:
    name: str
    port: int
    metrics_port: int
    migrates: bool = True

    @property
    def module(self) -> str:
        return f"nod_{self.name}"

    @property
    def address(self) -> str:
        return os.environ.get(f"NOD_{self.name.upper()}_ADDR", f"127.0.0.1:{self.port}")

    @property
    def listen(self) -> str:
        return os.environ.get(f"NOD_{self.name.upper()}_LISTEN", self.address)

    @property
    def metrics_listen(self) -> str:
        default = f"127.0.0.1:{self.metrics_port}"
        return os.environ.get(f"NOD_{self.name.upper()}_METRICS_LISTEN", default)


SERVICES = [
    Service("claims", 50051, 52051),
    Service("approvals", 50052, 52052),
    Service("payments", 50053, 52053),
    Service("browser", 50054, 52054, migrates=False),
    Service("tasks", 50055, 52055),
]
BY_NAME = {service.name: service for service in SERVICES}
# The web UI: HTTP, not gRPC, so it is started and waited for on its own.
GATEWAY = Service("gateway", 8080, 9080)
