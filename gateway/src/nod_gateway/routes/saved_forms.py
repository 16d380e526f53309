"""Forms that save something for the person (a vault item, an app account).

Each field is read with the words the person sees beside it, so a refusal,
the gateway's own or the service's, becomes one sentence naming that field.
What was typed into a secret field is never put back into a page: a form
shown again after a refusal keeps only the plain fields."""

from collections.abc import Sequence
from dataclasses import dataclass

import grpc
from starlette.datastructures import FormData

from nod_gateway.peers import ServiceCallFailed
from nod_gateway.web import fields
from nod_gateway.web.fields import BadField
from nodkit.cards import contains_card_number


@dataclass(frozen=True)
class Field:
    name: str  # in the form
    label: str  # beside the input
    max_length: int
    required: bool = True
    secret: bool = False
    # How the service names it in a refusal, e.g. "item.fields.number".
    service_name: str = ""
    # Put back into a form shown again after a refusal (never a secret).
    refill: bool = True


class Refusal(Exception):
    """Bad input, said in the form's own words; nothing was saved."""


def read(form: FormData, specs: Sequence[Field]) -> dict[str, str]:
    """Every field, checked; a secret keeps its spaces (trimmed, a password
    would no longer sign in). Raises Refusal naming the first bad one."""
    values = {}
    for spec in specs:
        try:
            value = fields.text(form, spec.name, max_length=spec.max_length, required=spec.required)
        except BadField as bad:
            # BadField's message starts with the field's name: say its label.
            raise Refusal(spec.label + str(bad)[len(spec.name) :]) from None
        if spec.secret and value:
            value = str(form.get(spec.name))
            if len(value) > spec.max_length:
                raise Refusal(f"{spec.label} is longer than {spec.max_length} characters.")
        values[spec.name] = value
    return values


def refusal(failure: ServiceCallFailed, specs: Sequence[Field]) -> Refusal:
    """The service's INVALID_ARGUMENT in the form's words; anything else is
    not bad input and goes on to the one place failures become pages."""
    if failure.error.code != grpc.StatusCode.INVALID_ARGUMENT:
        raise failure
    error = failure.error
    field, _, index = (error.field or "").partition("[")
    named = next((s for s in specs if s.service_name and s.service_name == field), None)
    if named is None:
        return Refusal(error.message)
    description = error.message.split(": ", 1)[-1]
    if index.rstrip("]").isdigit():
        # One of a list the person wrote one per line: say which line.
        return Refusal(f"{named.label} (line {int(index.rstrip(']')) + 1}) {description}.")
    return Refusal(f"{named.label} {description}.")


def kept(form: FormData, specs: Sequence[Field]) -> dict[str, str]:
    """What a form shown again may be filled with: plain fields that are
    fine as text. Secrets are typed again, and so is a plain field holding a
    card number (often why it was refused): a page never shows one."""
    values = {}
    for spec in specs:
        value = form.get(spec.name)
        if spec.secret or not spec.refill or not isinstance(value, str):
            continue
        if contains_card_number(value):
            continue
        if len(value) <= spec.max_length and "\x00" not in value:
            values[spec.name] = value
    return values
