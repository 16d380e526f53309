"""What a failed call to the claims service means to the caller of EnterPrivate.
A definite refusal (bad item, wrong site, reused operation id) is passed on as
it is; anything else is "the claims service could not grant it": nothing was
typed, and the caller treats the operation as unknown."""

import grpc

from nodkit.client import NodRpcError
from nodkit.errors import (
    AlreadyExists,
    DomainError,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    Unavailable,
)

PASSED_ON = {
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExists,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPrecondition,
}


def refusal_for(error: NodRpcError) -> DomainError:
    if error.code == grpc.StatusCode.INVALID_ARGUMENT:
        field = error.field or "request"
        return InvalidArgument(field, error.message.removeprefix(f"{field}: "), reason=error.reason)
    if error.code in PASSED_ON:
        return PASSED_ON[error.code](error.message, reason=error.reason or None)
    return Unavailable(
        f"the claims service did not grant the entry ({error.code.name}); nothing was typed",
        reason="CLAIMS_UNAVAILABLE",
    )
