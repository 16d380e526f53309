"""The tools the model calls, one module per kind; each handler gets the
step's context and its checked arguments, and returns how the step ended
(StepEnd) or what the task now waits for (WaitFor)."""
