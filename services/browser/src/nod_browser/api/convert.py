"""Browser requests and replies as proto messages and back."""

from google.protobuf import json_format

from nod.browser.v1 import browser_pb2 as pb
from nod_browser.adapters.claims_client import KINDS
from nod_browser.app.sessions import Session
from nod_browser.domain.entry import EntryRequest
from nodkit.redaction import redact_value
from nodkit.timestamps import to_proto


def entry_request(request: pb.EnterPrivateRequest) -> EntryRequest:
    return EntryRequest(
        operation_id=request.operation_id,
        kind=KINDS.domain("kind", request.kind),
        item_id=request.item_id,
        fields=dict(request.fields),
        submit=request.submit or None,
        companion_entry_id=request.companion_entry_id or None,
    )


def page_to_pb(page: dict) -> pb.Page:
    return json_format.ParseDict(page, pb.Page())


def session_to_pb(session: Session) -> pb.Session:
    return pb.Session(
        session_id=session.id,
        task_id=session.task_id,
        url=redact_value(session.entered.mask(session.page.url)),
        created_at=to_proto(session.created_at),
    )
