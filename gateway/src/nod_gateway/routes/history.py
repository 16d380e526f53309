"""History: every private entry's claim, every app action decided, every
payment, across the person's tasks, newest first. Each list filters by its
own state and pages on its own; every row links to its task."""

import asyncio
from dataclasses import dataclass
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.claims.v1 import claims_pb2 as claims
from nod.payments.v1 import payments_pb2 as payments
from nod_gateway.web.render import page
from nod_gateway.web.sessions import SignedIn

router = APIRouter()
PAGE_SIZE = 25
MAX_TOKEN = 500
CLAIM_FILTERS = {
    "running": claims.CLAIM_STATE_RUNNING,
    "submitted": claims.CLAIM_STATE_SUBMITTED,
    "uncertain": claims.CLAIM_STATE_UNCERTAIN,
}
APPROVAL_FILTERS = {
    "pending": approvals.APPROVAL_STATE_PENDING,
    "approved": approvals.APPROVAL_STATE_APPROVED,
    "rejected": approvals.APPROVAL_STATE_REJECTED,
    "cancelled": approvals.APPROVAL_STATE_CANCELLED,
    "expired": approvals.APPROVAL_STATE_EXPIRED,
}
PAYMENT_FILTERS = {
    "awaiting": payments.PAYMENT_STATE_AWAITING_CONFIRMATION,
    "confirmed": payments.PAYMENT_STATE_CONFIRMED,
    "running": payments.PAYMENT_STATE_RUNNING,
    "submitted": payments.PAYMENT_STATE_SUBMITTED,
    "uncertain": payments.PAYMENT_STATE_UNCERTAIN,
    "refused": payments.PAYMENT_STATE_REFUSED,
    "cancelled": payments.PAYMENT_STATE_CANCELLED,
    "expired": payments.PAYMENT_STATE_EXPIRED,
}


@dataclass(frozen=True)
class Asked:
    """What the address asks for: each list's state filter and page."""

    claims: str
    approvals: str
    payments: str
    claims_page: str
    approvals_page: str
    payments_page: str

    def link(self, **changes: str) -> str:
        """This page with some of it changed; a new filter starts its list
        from the first page."""
        values = vars(self) | changes
        for name in ("claims", "approvals", "payments"):
            if name in changes:
                values[f"{name}_page"] = ""
        query = urlencode({k: v for k, v in values.items() if v})
        return f"/history?{query}" if query else "/history"


def _known(value: str, table: dict) -> str:
    return value if value in table else ""


@router.get("/history")
async def history_page(
    request: Request,
    asked: SignedIn,
    claims_state: str = Query("", alias="claims"),
    approvals_state: str = Query("", alias="approvals"),
    payments_state: str = Query("", alias="payments"),
    claims_page: str = "",
    approvals_page: str = "",
    payments_page: str = "",
) -> Response:
    wanted = Asked(
        _known(claims_state, CLAIM_FILTERS),
        _known(approvals_state, APPROVAL_FILTERS),
        _known(payments_state, PAYMENT_FILTERS),
        claims_page[:MAX_TOKEN],
        approvals_page[:MAX_TOKEN],
        payments_page[:MAX_TOKEN],
    )
    nod = asked.nod
    listed_claims, listed_approvals, listed_payments = await asyncio.gather(
        nod.claims.ListClaims(
            claims.ListClaimsRequest(
                state=CLAIM_FILTERS.get(wanted.claims, claims.CLAIM_STATE_UNSPECIFIED),
                page_size=PAGE_SIZE,
                page_token=wanted.claims_page,
            )
        ),
        nod.approvals.ListApprovals(
            approvals.ListApprovalsRequest(
                state=APPROVAL_FILTERS.get(wanted.approvals, approvals.APPROVAL_STATE_UNSPECIFIED),
                page_size=PAGE_SIZE,
                page_token=wanted.approvals_page,
            )
        ),
        nod.payments.ListPayments(
            payments.ListPaymentsRequest(
                state=PAYMENT_FILTERS.get(wanted.payments, payments.PAYMENT_STATE_UNSPECIFIED),
                page_size=PAGE_SIZE,
                page_token=wanted.payments_page,
            )
        ),
    )
    return page(
        request,
        "history.html",
        wanted=wanted,
        claims=listed_claims,
        approvals=listed_approvals,
        payments=listed_payments,
        claim_filters=CLAIM_FILTERS,
        approval_filters=APPROVAL_FILTERS,
        payment_filters=PAYMENT_FILTERS,
    )
