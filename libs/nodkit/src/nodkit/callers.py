"""Who may call what: the one table of callers per method, for every service.

Each calling service presents its own token (NOD_SERVICE_TOKENS=
browser:<token>,tasks:<token>,gateway:<token>,payments:<token>) and may call
only the methods listed for it here. The single NOD_SERVICE_TOKEN is the
one-machine and scripting credential: it may call everything. A method
missing from the table is open to that token alone (fail closed).

With mutual TLS the caller's certificate names it instead (its subject CN,
nodkit.tls), and the same table says what that name may call. A token sent
beside a certificate must be that same service's or the single token, and
never widens what the certificate may call.
"""

import hmac
from collections.abc import Iterable, Mapping

from pydantic import SecretStr

from nodkit.errors import Unauthenticated

ALL = "*"  # the caller presenting NOD_SERVICE_TOKEN

BROWSER, TASKS, GATEWAY, PAYMENTS = "browser", "tasks", "gateway", "payments"
# The operator's CLI (nodctl): support and operations, acting for a person
# where the web page would (reads, a check's result, Stop, deleting a removed
# person's saved items and disconnecting their apps), never deciding or
# entering anything for them.
OPERATOR = "operator"

_CLAIMS = "/nod.claims.v1.ClaimsService/"
_VAULT = "/nod.claims.v1.VaultService/"
_VAULT_ADMIN = "/nod.claims.v1.VaultAdminService/"
_APPROVALS = "/nod.approvals.v1.ApprovalsService/"
_APPROVALS_ADMIN = "/nod.approvals.v1.ApprovalsAdminService/"
_PAYMENTS = "/nod.payments.v1.PaymentsService/"
_BROWSER = "/nod.browser.v1.BrowserService/"
_TASKS = "/nod.tasks.v1.TasksService/"


def _methods(prefix: str, names: str, callers: Iterable[str]) -> dict[str, frozenset[str]]:
    return {prefix + name: frozenset(callers) for name in names.split()}


def _one_entry_each(table: Iterable[dict[str, frozenset[str]]]) -> dict[str, frozenset[str]]:
    """The rows as one table; a method in two rows is a mistake (the later
    row would silently take the earlier's callers away), refused at import."""
    merged: dict[str, frozenset[str]] = {}
    for row in table:
        for method, callers in row.items():
            if method in merged:
                raise RuntimeError(f"{method} is listed twice in nodkit.callers")
            merged[method] = callers
    return merged


ALLOWED_CALLERS: Mapping[str, frozenset[str]] = _one_entry_each(
    [
        # Only the runner that types a value claims it, ends it and keeps its lease.
        _methods(_CLAIMS, "Claim MarkSubmitted MarkUncertain RenewHolder ReleaseHolder", [BROWSER]),
        # Tasks looks a step's claim up when the runner's answer was lost.
        _methods(_CLAIMS, "FindClaim", [BROWSER, TASKS]),
        _methods(_CLAIMS, "RecordCheck", [TASKS]),
        # Where a card may go is the payments service's to say, when its
        # entry starts (the merchant the person said yes to).
        _methods(_CLAIMS, "BindCardEntry", [PAYMENTS]),
        _methods(_CLAIMS, "GetClaim", [TASKS, GATEWAY, PAYMENTS, OPERATOR]),
        _methods(_CLAIMS, "ListClaims ListClaimEvents", [TASKS, GATEWAY, OPERATOR]),
        # The person's own values come in through the gateway only; the operator
        # deletes a removed person's saved items.
        _methods(_VAULT, "PutItem PutPrivateEntry", [GATEWAY]),
        _methods(_VAULT, "DeleteItem", [GATEWAY, OPERATOR]),
        _methods(_VAULT, "ListItems", [TASKS, GATEWAY, OPERATOR]),
        # Every owner's rows at once: the operator alone.
        _methods(_VAULT_ADMIN, "Reseal", [OPERATOR]),
        _methods(_APPROVALS_ADMIN, "Reseal", [OPERATOR]),
        _methods(_VAULT, "DiscardPrivateEntries", [TASKS, GATEWAY]),
        # A task proposes; the person decides and manages accounts in the UI.
        _methods(_APPROVALS, "Propose CancelForTask", [TASKS]),
        _methods(_APPROVALS, "Decide ConnectAccount", [GATEWAY]),
        # The operator disconnects a removed person's apps (their credentials go).
        _methods(_APPROVALS, "DisconnectAccount", [GATEWAY, OPERATOR]),
        # ...and erases the words of their approvals that are over.
        _methods(_APPROVALS, "EraseActionWords", [OPERATOR]),
        _methods(
            _APPROVALS,
            "GetApproval ListApprovals ListApprovalEvents WatchApproval ListAccounts",
            [TASKS, GATEWAY, OPERATOR],
        ),
        # A task asks for a payment and drives its card entry; the person says yes.
        _methods(
            _PAYMENTS,
            "CreatePayment StartCardEntry RecordSubmitted RecordUncertain RecordOutcome"
            " CancelForTask",
            [TASKS],
        ),
        _methods(_PAYMENTS, "ConfirmPayment SetLimits", [GATEWAY]),
        _methods(
            _PAYMENTS,
            "GetPayment ListPayments ListPaymentEvents WatchPayment GetLimits",
            [TASKS, GATEWAY, OPERATOR],
        ),
        # The browser is driven by tasks; the UI may list and close sessions.
        _methods(
            _BROWSER,
            "OpenSession Navigate ReadPage Click TypeText SelectOption SetChecked PressKey Scroll"
            " GoBack SwitchPage EnterPrivate CloseSession",
            [TASKS],
        ),
        _methods(_BROWSER, "CloseTaskSessions ListSessions", [TASKS, GATEWAY]),
        # The picture of a step's page (private values painted over) is taken
        # for the person's view of their task, and stored by tasks alone.
        _methods(_BROWSER, "Screenshot", [TASKS]),
        # A look (read-only, G14) is asked for by tasks, from its records.
        _methods(_BROWSER, "Look", [TASKS]),
        # Tasks are the person's, through the UI. The operator reads a task's
        # history, records a person's check and stops a removed person's tasks;
        # it starts, continues or answers nothing.
        _methods(
            _TASKS,
            "StartTask WatchTask Continue SubmitPrivateForm AnswerQuestion LookForMe",
            [GATEWAY],
        ),
        _methods(
            _TASKS, "GetTask ListTasks ListTaskEvents Stop ResolveUncertain", [GATEWAY, OPERATOR]
        ),
        # A step's page picture is the person's to see, in the UI only; the
        # operator erases a removed person's pictures, and their tasks' words.
        _methods(_TASKS, "GetStepScreenshot", [GATEWAY]),
        _methods(_TASKS, "DeleteStepScreenshots EraseTaskWords", [OPERATOR]),
    ]
)


def parse_service_tokens(setting: str) -> dict[str, SecretStr]:
    """`name:token,name:token` -> {name: token}. Names are caller names above."""
    tokens: dict[str, SecretStr] = {}
    for part in filter(None, (p.strip() for p in setting.split(","))):
        name, sep, token = part.partition(":")
        if not sep or not name or not token:
            raise ValueError("NOD_SERVICE_TOKENS must be name:token pairs, comma-separated")
        if name in tokens:
            raise ValueError(f"NOD_SERVICE_TOKENS names {name!r} twice")
        tokens[name] = SecretStr(token)
    return tokens


class Callers:
    """Tells a call's caller from its credentials, and what it may call."""

    def __init__(
        self,
        *,
        everything: SecretStr | None,
        services: Mapping[str, SecretStr],
        accept_tokens: bool = True,
        certificates: bool = False,
    ) -> None:
        """`certificates`: every connection carries a verified client
        certificate (mutual TLS). Without `accept_tokens`, tokens are not
        looked at, even when some are set."""
        self._bearers = [(ALL, _bearer(everything))] if everything else []
        self._bearers += [(name, _bearer(token)) for name, token in services.items()]
        if not accept_tokens:
            self._bearers = []
        if not self._bearers and not certificates:
            raise ValueError("set NOD_SERVICE_TOKEN or NOD_SERVICE_TOKENS, or turn on mutual TLS")
        self._accept_tokens = accept_tokens

    def identify(self, authorization: str, certificate: str | None) -> str:
        """The calling service: the one its certificate names, else the one
        its token names. Raises Unauthenticated when neither names one, or
        when a token beside a certificate belongs to another service."""
        if certificate is not None:
            if authorization and self._accept_tokens:
                by_token = self.caller_of(authorization)
                if by_token is None:
                    raise Unauthenticated("wrong service token", reason="BAD_SERVICE_TOKEN")
                if by_token not in (ALL, certificate):
                    raise Unauthenticated(
                        "the service token and the certificate name different services",
                        reason="CALLER_MISMATCH",
                    )
            return certificate
        caller = self.caller_of(authorization) if self._accept_tokens else None
        if caller is None:
            raise Unauthenticated("missing or wrong service token", reason="BAD_SERVICE_TOKEN")
        return caller

    def caller_of(self, authorization: str) -> str | None:
        presented = authorization.encode()
        found = None
        for name, expected in self._bearers:
            # Every token is compared, so the time taken names none of them.
            if hmac.compare_digest(presented, expected) and found is None:
                found = name
        return found

    @staticmethod
    def may_call(caller: str, method: str) -> bool:
        return caller == ALL or caller in ALLOWED_CALLERS.get(method, ())


def _bearer(token: SecretStr) -> bytes:
    return f"Bearer {token.get_secret_value()}".encode()
