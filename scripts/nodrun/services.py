"""What `make run` starts, and where: every service on its default port
(DESIGN.md: claims 50051 ... tasks 50055, the gateway 8080), each movable with
NOD_<SERVICE>_LISTEN and NOD_<SERVICE>_ADDR."""

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Service:
    name: str
    port: int
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


SERVICES = [
    Service("claims", 50051),
    Service("approvals", 50052),
    Service("payments", 50053),
    Service("browser", 50054, migrates=False),
    Service("tasks", 50055),
]
BY_NAME = {service.name: service for service in SERVICES}
# The web UI: HTTP, not gRPC, so it is started and waited for on its own.
GATEWAY = Service("gateway", 8080)
