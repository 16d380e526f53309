"""What a person reads when a service call fails: which service, and whether
anything may have happened. Never a stack trace, never a private value."""

from dataclasses import dataclass

import grpc

from nod_gateway.peers import ServiceCallFailed

UNREACHED = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})


@dataclass(frozen=True)
class Problem:
    status: int
    title: str
    message: str


def explain(failure: ServiceCallFailed) -> Problem:
    error = failure.error
    code = error.code
    if code == grpc.StatusCode.NOT_FOUND:
        return Problem(404, "Not found", "There is nothing here, or it isn't yours.")
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        return Problem(400, "Please check what you entered", error.message)
    if code == grpc.StatusCode.ALREADY_EXISTS and error.reason == "REQUEST_ID_REUSED":
        # A form's own request id, sent again with other values (the page
        # was kept and edited after it was sent): the first one counted.
        return Problem(
            409,
            "This form was sent already",
            "This form was already sent once, with other values; nothing more was done."
            " Open the page again to send something new.",
        )
    if code in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ALREADY_EXISTS):
        return Problem(409, "That can't be done now", f"{error.message} Nothing was done.")
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return Problem(429, "Too much at once", f"{error.message} Nothing was done.")
    if error.may_have_happened and failure.changes:
        return Problem(
            503 if code in UNREACHED else 502,
            "This may have happened",
            f"nod lost touch with {failure.label} before it answered, so this may have"
            " happened: check before trying again.",
        )
    if code in UNREACHED or not failure.changes:
        return Problem(
            503, "Not reachable right now",
            f"nod can't reach {failure.label} right now; nothing was done. Try again in a moment.",
        )  # fmt: skip
    return Problem(
        502, "Something went wrong", f"{failure.label} refused the gateway; nothing was done."
    )
