"""Every log line the in-process services write during the test session,
kept so tests can assert what a log contains (and what it never contains)."""

import io
import sys


class LogTee(io.TextIOBase):
    def __init__(self) -> None:
        self.lines: list[str] = []
        self._partial = ""

    def write(self, text: str) -> int:
        sys.stderr.write(text)
        self._partial += text
        *complete, self._partial = self._partial.split("\n")
        self.lines.extend(line for line in complete if line)
        return len(text)

    def text(self) -> str:
        return "\n".join(self.lines) + self._partial
