"""Where each private value may go (G13), in plain Python.

Every value is bound, before it can be claimed, to the origins the person
chose for it: a saved login to its site and the equivalent sites they
listed; a value typed in the private form to the top page and the frame the
form was asked for; a card to the merchant the person said yes to and the
hosted payment pages that yes named (BindCardEntry, from the payments
service). A claim says where its values would go (the top page, the frame
holding the fields, the origin the submission goes to); one outside the
binding is refused, in words a person reads, and nothing is written.

The hot path grants saved logins and cards in one SQL statement that holds
these same rules (store/claims.py); this module is the one that explains a
refusal, and the rules for the paths that take a one-time entry.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from nodkit import validation
from nodkit.errors import AlreadyExists, FailedPrecondition, InvalidArgument

MAX_EQUIVALENT_ORIGINS = 20
MAX_HOSTED_PAYMENT_ORIGINS = 10


class BoundTo(StrEnum):
    """What the person chose a value for, which decides the rule."""

    # A saved login: every origin of the entry must be one of the set.
    SAVED_SITE = "saved_site"
    # A value typed in the private form: exactly its page and frame.
    FORM_PAGE = "form_page"
    # A card: the top page is the shop (or a hosted payment page named in
    # the yes); its fields may sit in any frame the shop's page embeds.
    PAYMENT = "payment"


@dataclass(frozen=True)
class Destination:
    """Where a claim's values would go, as the runner saw the page."""

    origin: str
    # The frame holding the fields (the top page's when they are in it).
    frame_origin: str
    # Where the submission goes; None when nothing is pressed or no form.
    submit_origin: str | None


@dataclass(frozen=True)
class Binding:
    bound_to: BoundTo
    # The origins themselves: a login's site first, then its equivalents; a
    # form's top page then its frame; a card's merchant then hosted pages.
    origins: tuple[str, ...]


def saved_login_binding(origin: str, equivalent_origins: Sequence[str]) -> Binding:
    return Binding(BoundTo.SAVED_SITE, unique_origins([origin, *equivalent_origins]))


def form_binding(origin: str, frame_origin: str) -> Binding:
    return Binding(BoundTo.FORM_PAGE, (origin, frame_origin))


def payment_binding(merchant_origin: str, hosted_payment_origins: Sequence[str]) -> Binding:
    return Binding(BoundTo.PAYMENT, unique_origins([merchant_origin, *hosted_payment_origins]))


def unique_origins(origins: Iterable[str]) -> tuple[str, ...]:
    """Each once, in the order first given."""
    return tuple(dict.fromkeys(origins))


def _either(origins: Sequence[str]) -> str:
    """ "a", "a or b", "a, b or c": a list a person reads."""
    if len(origins) == 1:
        return origins[0]
    return f"{', '.join(origins[:-1])} or {origins[-1]}"


def _chosen_for(binding: Binding) -> str:
    """What the person chose the value for, in their words."""
    listed = _either(unique_origins(binding.origins))
    if binding.bound_to == BoundTo.SAVED_SITE:
        return f"the site this login is saved for ({listed})"
    if binding.bound_to == BoundTo.FORM_PAGE:
        return f"the page you typed it for ({binding.origins[0]})"
    return f"the shop you said yes to ({listed})"


def check_destination(binding: Binding, where: Destination) -> None:
    """Raises FailedPrecondition naming the rule a destination breaks."""
    origins = binding.origins
    if binding.bound_to == BoundTo.FORM_PAGE:
        top_ok, frame_ok = where.origin == origins[0], where.frame_origin == origins[1]
    else:
        top_ok = where.origin in origins
        # A shop's page embeds its payment provider's card fields.
        frame_ok = binding.bound_to == BoundTo.PAYMENT or where.frame_origin in origins
    if not top_ok:
        raise FailedPrecondition(
            f"this page belongs to {where.origin}, not {_chosen_for(binding)}; nothing was entered",
            reason="PAGE_NOT_BOUND",
        )
    if not frame_ok:
        wanted = origins[1] if binding.bound_to == BoundTo.FORM_PAGE else _either(origins)
        raise FailedPrecondition(
            f"the fields are in a part of the page that comes from {where.frame_origin},"
            f" not from {wanted}; nothing was entered",
            reason="FRAME_NOT_BOUND",
        )
    submit = where.submit_origin
    if submit is not None and submit not in origins:
        if not (binding.bound_to == BoundTo.PAYMENT and submit == where.frame_origin):
            raise FailedPrecondition(
                f"this form would send what is typed to {submit}, not to"
                f" {_chosen_for(binding)}; nothing was entered",
                reason="SUBMISSION_NOT_BOUND",
            )


def bound_origins(binding: Binding, where: Destination) -> tuple[str, ...]:
    """Every origin a granted value may be sent to: its binding, plus the
    frame its fields are in (a card's provider frame)."""
    return unique_origins([*binding.origins, where.frame_origin])


def card_not_bound() -> FailedPrecondition:
    return FailedPrecondition(
        "this card was not set up to be entered for a payment you said yes to; nothing was entered",
        reason="CARD_NOT_BOUND",
    )


def entry_not_bound() -> FailedPrecondition:
    return FailedPrecondition(
        "this value was not typed for a page, so it can't be entered anywhere; nothing was entered",
        reason="ENTRY_NOT_BOUND",
    )


def security_code_alone() -> FailedPrecondition:
    return FailedPrecondition(
        "a card's security code goes in only with its card, for the payment you said yes to;"
        " nothing was entered",
        reason="ENTRY_NOT_BOUND",
    )


def check_equivalent_origins(origin: str, values: Sequence[str]) -> tuple[str, ...]:
    """A login's other sites: each a web origin, listed once, not its own site."""
    if len(values) > MAX_EQUIVALENT_ORIGINS:
        raise InvalidArgument(
            "item.equivalent_origins", f"must list at most {MAX_EQUIVALENT_ORIGINS} sites"
        )
    checked = [
        validation.origin(f"item.equivalent_origins[{n}]", value) for n, value in enumerate(values)
    ]
    return tuple(o for o in unique_origins(checked) if o != origin)


@dataclass(frozen=True)
class CardBindingRequest:
    operation_id: str
    item_id: str
    task_id: str
    merchant_origin: str
    hosted_payment_origins: tuple[str, ...]


@dataclass(frozen=True)
class CardBinding:
    operation_id: str
    item_id: str
    task_id: str
    merchant_origin: str
    hosted_payment_origins: tuple[str, ...]
    created_at: datetime

    def binding(self) -> Binding:
        return payment_binding(self.merchant_origin, self.hosted_payment_origins)

    def binds(self, item_id: str, task_id: str) -> bool:
        """Whether this is the binding of a card claim for that item and task."""
        return self.item_id == item_id and self.task_id == task_id


def check_card_binding_request(request: CardBindingRequest) -> CardBindingRequest:
    if len(request.hosted_payment_origins) > MAX_HOSTED_PAYMENT_ORIGINS:
        raise InvalidArgument(
            "hosted_payment_origins", f"must list at most {MAX_HOSTED_PAYMENT_ORIGINS} origins"
        )
    hosted = [
        validation.origin(f"hosted_payment_origins[{n}]", value)
        for n, value in enumerate(request.hosted_payment_origins)
    ]
    merchant = validation.origin("merchant_origin", request.merchant_origin)
    return CardBindingRequest(
        operation_id=validation.printable_id("operation_id", request.operation_id),
        item_id=validation.uuid_id("item_id", request.item_id),
        task_id=validation.printable_id("task_id", request.task_id),
        merchant_origin=merchant,
        # A set: the order the caller listed them in is not part of the yes.
        hosted_payment_origins=tuple(sorted(o for o in set(hosted) if o != merchant)),
    )


def answer_rebind(first: CardBinding, request: CardBindingRequest) -> CardBinding:
    """A binding exists for this operation id: a resend of the same one gets
    it; anything else would widen or move where the card may go."""
    if (
        first.item_id,
        first.task_id,
        first.merchant_origin,
        first.hosted_payment_origins,
    ) != (
        request.item_id,
        request.task_id,
        request.merchant_origin,
        request.hosted_payment_origins,
    ):
        raise AlreadyExists(
            "operation_id was already bound to another card entry; use a new operation id",
            reason="OPERATION_ID_REUSED",
            field="operation_id",
        )
    return first
