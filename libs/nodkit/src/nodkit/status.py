"""The one place where exceptions become gRPC statuses.

Domain errors carry their code, reason and metadata into a rich status
(google.rpc.Status with ErrorInfo, plus BadRequest for a bad field). Database
trouble becomes UNAVAILABLE or DEADLINE_EXCEEDED, which callers of a
state-changing call treat as "may have happened" (G4). Anything else is
INTERNAL with a generic message; the detail goes to the log only.

No status carries a card number (nodkit.cards), even one an error names
because a caller put it where a name goes (a map's key).
"""

import grpc
import psycopg
import psycopg.errors
import psycopg_pool
import sqlalchemy.exc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from nodkit.cards import mask_card_numbers
from nodkit.errors import DomainError, InvalidArgument


def _pack(message) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def status_for_domain_error(error: DomainError, domain: str) -> grpc.Status:
    metadata = {key: mask_card_numbers(value) for key, value in error.metadata.items()}
    details = [
        _pack(error_details_pb2.ErrorInfo(reason=error.reason, domain=domain, metadata=metadata))
    ]
    if isinstance(error, InvalidArgument):
        violation = error_details_pb2.BadRequest.FieldViolation(
            field=mask_card_numbers(error.field), description=mask_card_numbers(error.description)
        )
        details.append(_pack(error_details_pb2.BadRequest(field_violations=[violation])))
    status = status_pb2.Status(
        code=getattr(code_pb2, error.code),
        message=mask_card_numbers(error.message),
        details=details,
    )
    return rpc_status.to_status(status)


def _simple(code: str, message: str, reason: str, domain: str) -> grpc.Status:
    info = error_details_pb2.ErrorInfo(reason=reason, domain=domain)
    status = status_pb2.Status(code=getattr(code_pb2, code), message=message, details=[_pack(info)])
    return rpc_status.to_status(status)


def status_for_exception(error: BaseException, domain: str) -> grpc.Status:
    """Statuses for exceptions that are not domain errors."""
    if isinstance(error, sqlalchemy.exc.DBAPIError):
        error = error.orig or error
    if isinstance(error, psycopg_pool.PoolTimeout | sqlalchemy.exc.TimeoutError):
        return _simple("UNAVAILABLE", "no database connection was free", "DATABASE_BUSY", domain)
    if isinstance(error, psycopg.errors.QueryCanceled | TimeoutError):
        return _simple(
            "DEADLINE_EXCEEDED",
            "the database did not answer in time; the change may or may not have been made",
            "DATABASE_TIMEOUT",
            domain,
        )
    if isinstance(error, psycopg.OperationalError | psycopg.InterfaceError):
        return _simple(
            "UNAVAILABLE",
            "the database could not be reached; the change may or may not have been made",
            "DATABASE_UNAVAILABLE",
            domain,
        )
    return _simple("INTERNAL", "internal error", "INTERNAL", domain)
