"""An email address a person gives for nudges, checked in words: one line,
short, one `@`, a domain with a dot. Not every address RFC 5321 allows (no
quoted local parts, no address literals), and nothing that could become a
second header line."""

import re

MAX_LENGTH = 254  # what fits in SMTP's forward-path
MAX_LOCAL = 64
# Letters, digits and the marks an ordinary mailbox uses; any non-ASCII
# letter too (SMTPUTF8 addresses).
_LOCAL = re.compile(r"^[\w.!#$%&'*+/=?^`{|}~-]+$")
_LABEL = re.compile(r"^(?!-)[\w-]{1,63}(?<!-)$")


def address_problem(address: str) -> str | None:
    """Why this is no address nod sends to, in words; None when it is one."""
    if not address:
        return "Please enter an email address."
    if len(address) > MAX_LENGTH:
        return f"An email address is at most {MAX_LENGTH} characters."
    if any(ord(c) < 32 or ord(c) == 127 for c in address):
        return "An email address is one line, without control characters."
    if any(c.isspace() for c in address):
        return "An email address has no spaces."
    local, at, domain = address.rpartition("@")
    if not at or not local or not domain or "@" in local:
        return "An email address has one @ between a name and a domain, like ada@example.com."
    if len(local) > MAX_LOCAL or not _LOCAL.match(local) or ".." in local:
        return "The part before the @ has characters an email address can't have."
    if local.startswith(".") or local.endswith("."):
        return "The part before the @ can't start or end with a dot."
    labels = domain.split(".")
    if len(labels) < 2 or not all(_LABEL.match(label) for label in labels):
        return "The part after the @ must be a domain, like example.com."
    if "_" in domain:
        return "The part after the @ must be a domain, like example.com."
    return None
