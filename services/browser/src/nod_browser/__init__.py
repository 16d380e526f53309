"""nod's browser service: live browser sessions, and the one place private
values are typed into pages, always under a claim (G1). No database: sessions
live in memory and end with the process; the claims service keeps the record."""
