"""G4 at the edge: a database answer that isn't definite reaches the caller
as "may have happened"; a refusal reaches it as a definite no."""

import grpc
import psycopg
import psycopg.errors
import sqlalchemy.exc
from google.rpc import error_details_pb2, status_pb2

from nodkit.cards import contains_card_number
from nodkit.errors import FailedPrecondition, InvalidArgument
from nodkit.status import status_for_domain_error, status_for_exception


def reason_of(status: grpc.Status) -> str:
    details = dict(status.trailing_metadata)["grpc-status-details-bin"]
    for detail in status_pb2.Status.FromString(details).details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info.reason
    return ""


def wrapped(error: Exception) -> sqlalchemy.exc.DBAPIError:
    return sqlalchemy.exc.OperationalError("UPDATE ...", {}, error)


def test_a_lost_database_may_have_made_the_change():
    for error in (
        psycopg.OperationalError("server closed the connection"),
        wrapped(psycopg.OperationalError("server closed the connection")),
    ):
        status = status_for_exception(error, "nod.test")
        assert status.code == grpc.StatusCode.UNAVAILABLE
        assert reason_of(status) == "DATABASE_UNAVAILABLE"
        assert "may or may not" in status.details


def test_a_statement_past_its_deadline_may_have_made_the_change():
    status = status_for_exception(wrapped(psycopg.errors.QueryCanceled("timeout")), "nod.test")
    assert status.code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert reason_of(status) == "DATABASE_TIMEOUT"


def test_anything_else_is_internal_without_its_detail():
    status = status_for_exception(ValueError("secret detail 4111111111111111"), "nod.test")
    assert status.code == grpc.StatusCode.INTERNAL
    assert status.details == "internal error"


def test_a_domain_refusal_keeps_its_code_and_reason():
    status = status_for_domain_error(
        FailedPrecondition("the claim is final", reason="CLAIM_FINAL"), "nod.test"
    )
    assert status.code == grpc.StatusCode.FAILED_PRECONDITION
    assert reason_of(status) == "CLAIM_FINAL"


def test_no_status_carries_a_card_number_even_where_an_error_names_one():
    # A caller put a card number where a name goes: a map's key.
    card = "4242.4242.4242.4242"
    error = InvalidArgument(f"account.settings.{card}", "is not known here")
    error.metadata["key"] = f"id-{card}-1"

    status = status_for_domain_error(error, "nod.test")

    details = dict(status.trailing_metadata)["grpc-status-details-bin"]
    shown = str(status_pb2.Status.FromString(details)) + status.details
    assert "[redacted-number]" in shown and not contains_card_number(shown), shown
    assert "4242.4242" not in shown and "account.settings." in shown
