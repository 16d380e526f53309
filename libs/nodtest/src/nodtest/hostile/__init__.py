"""Hostile pages: sites of our own on loopback whose pages try to send a
person's private values where the person never chose, an obedient model
stand-in that does what they say, the person's side, and the count of
where each value went (docs/HOSTILE_PAGES.md)."""
