"""What a person may say they found about an uncertain step, and how the
task is told it: shared by the task page's buttons and `nodctl resolve`,
so it imports no web framework."""

from nod.tasks.v1 import tasks_pb2 as tasks

RESOLUTIONS = {
    "happened": tasks.RESOLUTION_HAPPENED,
    "did_not_happen": tasks.RESOLUTION_DID_NOT_HAPPEN,
}
# What a person may say they found (the form's `found`, nodctl resolve's).
FOUND = (*RESOLUTIONS, "try_again")
NOTE_MAX_LENGTH = 1000
# Told to the task with "it did not happen", which the service already says.
TRY_AGAIN = "Try again, as a new request."


def resolution_request(
    task_id: str, step: int, found: str, note: str
) -> tasks.ResolveUncertainRequest:
    """What a person found about an uncertain step, as the task is told it."""
    if found == "try_again":
        note = f"{TRY_AGAIN} {note}".strip()
    resolution = RESOLUTIONS.get(found, tasks.RESOLUTION_DID_NOT_HAPPEN)
    return tasks.ResolveUncertainRequest(
        task_id=task_id, step=step, resolution=resolution, note=note
    )
