"""Who may sign in, their sessions and their sign-in attempts: the gateway's
only state, in its own schema."""
