"""The picture of a step's page, for the person: the browser's Screenshot
of the page after a step that changed or read it, every private field and
every value the session entered that the page shows back painted over.

It is the person's, never the model's: kept in a table of its own, apart
from the step's result, and never put into a result, an event or the
transcript, which are all that a model request is made of."""

from dataclasses import dataclass

# The tools whose step changes or reads a page: its picture is kept with it.
PAGE_TOOLS = frozenset(
    {
        "navigate",
        "click",
        "type_text",
        "select_option",
        "set_checked",
        "press_key",
        "scroll",
        "go_back",
        "switch_page",
        "read_page",
        "wait_for_page",
        "enter_saved_login",
        "enter_from_private_form",
        "pay",
        "confirm_payment",
    }
)


@dataclass(frozen=True)
class PagePicture:
    image: bytes
    # "image/png".
    media_type: str

    def __repr__(self) -> str:  # never the bytes, in a log or an error
        return f"PagePicture({self.media_type}, {len(self.image)} bytes)"
