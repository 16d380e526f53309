"""The person a call acts for, named by the `x-nod-user` metadata."""

from nodkit import context
from nodkit.errors import Unauthenticated


def current_user() -> str:
    value = context.user.get()
    if not value or len(value) > 128 or not value.isprintable():
        raise Unauthenticated("the call must name the person in x-nod-user", reason="MISSING_USER")
    return value
