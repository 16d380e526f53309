"""A one-time code typed into a field split over one-character boxes: one
character per box, checked to fit before the first keystroke."""

SEPARATORS = " -"


class CodeDoesNotFit(Exception):
    """The code has more or fewer characters than the field has boxes.
    Says neither the code nor its length."""

    def __init__(self, boxes: int) -> None:
        super().__init__(f"the code does not fit the field's {boxes} boxes")
        self.boxes = boxes


def split_code(code: str, boxes: int) -> list[str]:
    """The character for each box, in order; the spaces or dashes a code is
    sometimes shown with ("123 456") are no characters of it."""
    characters = [char for char in code if char not in SEPARATORS]
    if len(characters) != boxes:
        raise CodeDoesNotFit(boxes)
    return characters
