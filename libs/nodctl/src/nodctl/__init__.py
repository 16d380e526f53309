"""nodctl, the operator's CLI: the services' health and versions, every
UNCERTAIN record, a task's history, a person's check of an uncertain step,
the people who may sign in and their sessions, and re-sealing the vault
under its newest key. It makes the gateway's calls, through the gateway's
own code (its peers, timeline and people store), as the `operator` caller."""
