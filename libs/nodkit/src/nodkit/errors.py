"""Typed domain errors. Pure Python: domain code raises these without
knowing about gRPC; nodkit.status maps them to status codes in one place.

Messages are shown to callers, so they must never contain a private value.
`reason` is an UPPER_SNAKE_CASE constant sent as google.rpc.ErrorInfo.reason.
"""

MAX_FIELD_NAME = 300


class DomainError(Exception):
    code = "INTERNAL"
    default_reason = "INTERNAL"

    def __init__(self, message: str, *, reason: str | None = None, **metadata: str) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason or self.default_reason
        self.metadata = {k: str(v) for k, v in metadata.items()}


class InvalidArgument(DomainError):
    """Bad input. Always names the offending field; nothing was changed."""

    code = "INVALID_ARGUMENT"
    default_reason = "INVALID_ARGUMENT"

    def __init__(self, field: str, message: str, *, reason: str | None = None) -> None:
        # A field path can hold a caller's map key: never echo a huge one.
        field = field if len(field) <= MAX_FIELD_NAME else field[: MAX_FIELD_NAME - 1] + "…"
        super().__init__(f"{field}: {message}", reason=reason, field=field)
        self.field = field
        self.description = message


class NotFound(DomainError):
    """Missing, or belongs to another person (the two look the same)."""

    code = "NOT_FOUND"
    default_reason = "NOT_FOUND"


class AlreadyExists(DomainError):
    code = "ALREADY_EXISTS"
    default_reason = "ALREADY_EXISTS"


class FailedPrecondition(DomainError):
    code = "FAILED_PRECONDITION"
    default_reason = "FAILED_PRECONDITION"


class PermissionDenied(DomainError):
    code = "PERMISSION_DENIED"
    default_reason = "PERMISSION_DENIED"


class Unauthenticated(DomainError):
    code = "UNAUTHENTICATED"
    default_reason = "UNAUTHENTICATED"


class ResourceExhausted(DomainError):
    code = "RESOURCE_EXHAUSTED"
    default_reason = "RESOURCE_EXHAUSTED"


class Unavailable(DomainError):
    """A dependency did not answer. For a state-changing call the caller must
    treat this as "may have happened" (G4)."""

    code = "UNAVAILABLE"
    default_reason = "UNAVAILABLE"
