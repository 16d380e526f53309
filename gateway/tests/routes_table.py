"""The gateway's routes as its FastAPI app lists them (app.routes): what the
route-matrix and form-fuzzing tests are generated from, so a new route
fails them until it is classified."""

import dataclasses
import re
import uuid

from fastapi.routing import APIRoute
from starlette.routing import Mount

from nod_gateway.app import create_app
from nod_gateway.settings import GatewaySettings


@dataclasses.dataclass(frozen=True)
class Route:
    method: str  # GET, POST, or MOUNT for a mounted folder
    path: str  # as declared: /tasks/{task_id}

    @property
    def params(self) -> list[str]:
        return re.findall(r"{(\w+)(?::\w+)?}", self.path)

    def filled(self, values: dict[str, str]) -> str:
        return re.sub(r"{(\w+)(?::\w+)?}", lambda m: values[m.group(1)], self.path)


def _routes_of(entry) -> list[Route]:
    if isinstance(entry, Mount):
        return [Route("MOUNT", entry.path)]
    if isinstance(entry, APIRoute):
        return [Route(method, entry.path) for method in sorted(entry.methods - {"HEAD"})]
    # An included router (FastAPI keeps it whole and resolves it lazily).
    included = getattr(entry, "original_router", None)
    if included is not None:
        return [route for inner in included.routes for route in _routes_of(inner)]
    raise AssertionError(f"a kind of route the tests don't know: {entry!r}")


def every_route() -> list[Route]:
    # Settings are only read when the app starts serving; the table is
    # there as soon as it is built.
    app = create_app(GatewaySettings.model_construct())
    return [route for entry in app.routes for route in _routes_of(entry)]


# What each post sends when its person means it: every field it reads.
FORMS = {
    "/signout": lambda: {},
    "/tasks": lambda: {"text": "Water the plants", "request_id": uuid.uuid4().hex},
    "/stop": lambda: {},
    "/tasks/{task_id}/stop": lambda: {},
    "/tasks/{task_id}/continue": lambda: {"text": "Go on.", "request_id": uuid.uuid4().hex},
    "/approvals/{approval_id}/decide": lambda: {"decision": "no"},
    "/payments/{payment_id}/decide": lambda: {"decision": "no"},
    "/tasks/{task_id}/forms/{form_id}": lambda: {"value": "000000", "request_id": uuid.uuid4().hex},
    "/tasks/{task_id}/questions/{question_id}": lambda: {"text": "Yes."},
    "/tasks/{task_id}/steps/{step}/resolve": lambda: {"found": "happened"},
    "/tasks/{task_id}/steps/{step}/look": lambda: {},
    "/vault/logins": lambda: {
        "label": "Matrix", "origin": "https://matrix.example",
        "username": "u@example.com", "password": "pw-matrix-1", "request_id": uuid.uuid4().hex,
    },
    "/vault/cards": lambda: {
        "label": "Matrix", "number": "4000056655665556", "expiry": "09/31", "holder_name": "Ada",
        "request_id": uuid.uuid4().hex,
    },
    "/vault/{item_id}/delete": lambda: {},
    "/apps/webhook": lambda: {"label": "Matrix", "url": "http://127.0.0.1:9/hook", "token": ""},
    "/apps/smtp": lambda: {
        "label": "Matrix", "host": "127.0.0.1", "port": "2525", "from": "ada@example.com",
        "username": "", "password": "",
    },
    "/apps/{account_id}/disconnect": lambda: {},
    "/you/email": lambda: {"address": "ada@example.com"},
    "/you/email/remove": lambda: {},
}  # fmt: skip
