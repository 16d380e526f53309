"""Where the tests' stand-in websites live, and what the browser is allowed
to reach of loopback for them.

127.0.0.1 is the services' (and the database's): the browser must never
reach it, so every site a browser visits in a test or under `make run`
listens on 127.0.0.2 and up, and the browser's NOD_BROWSER_ALLOWED_NETWORKS
allows exactly 127.0.0.2-127.0.0.31. Servers only the services reach (a
model, SMTP, an app's webhook) may stay on 127.0.0.1."""

# The first site, and a second origin for what must be cross-origin
# (hosted card fields, a frame of another site).
SITE_HOST = "127.0.0.2"
OTHER_SITE_HOST = "127.0.0.3"

# 127.0.0.2-127.0.0.31, in CIDRs.
BROWSER_ALLOWED_NETWORKS = "127.0.0.2/31,127.0.0.4/30,127.0.0.8/29,127.0.0.16/28"
