"""Local stand-ins for the outside world nod talks to: real HTTP servers that
count what they receive."""
