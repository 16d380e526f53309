"""Reading a posted field: present, short enough, no NUL. A bad field is a
400 that names it and changes nothing."""

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException

# A step's number is the contract's int32, counted from 1.
MAX_STEP = 2**31 - 1


class BadField(Exception):
    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(message)


def text(form: FormData, name: str, *, max_length: int = 4000, required: bool = True) -> str:
    value = form.get(name, "")
    if not isinstance(value, str):
        raise BadField(name, f"{name} must be text.")
    value = value.strip()
    if required and not value:
        raise BadField(name, f"{name} is required.")
    if len(value) > max_length:
        raise BadField(name, f"{name} is longer than {max_length} characters.")
    if "\x00" in value:
        raise BadField(name, f"{name} contains a NUL character.")
    return value


def choice(form: FormData, name: str, allowed: tuple[str, ...]) -> str:
    value = text(form, name, max_length=64)
    if value not in allowed:
        raise BadField(name, f"{name} must be one of: {', '.join(allowed)}.")
    return value


def step_number(step: int) -> int:
    """A step's number from an address: one no task can have is a 404,
    never a call the contract can't carry."""
    if not 1 <= step <= MAX_STEP:
        raise HTTPException(404, "There is nothing here, or it isn't yours.")
    return step
