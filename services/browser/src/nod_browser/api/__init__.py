"""The gRPC edge: each method names the person, makes one use-case call and
translates proto messages to domain values and back."""
