"""Real open-source web applications, run on loopback as test sites that
nobody on this project wrote (docs/REAL_SITES.md says what their pages look
like to a program).

Each application is a test dependency pinned in uv.lock (the root
pyproject's `webapps` group). One fixture module per application builds a
small site configuration (`sites/<name>/`), gives each test a fresh SQLite
database, starts the application's own server as a child process and reads
back what the site itself recorded. The fixture modules never import the
applications: only the child processes do, so a test session that uses none
of them pays nothing."""
