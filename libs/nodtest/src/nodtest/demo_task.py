"""The person's side of a demo task under `make run` (nodtest.make_run): the
task started, its one-time code typed, its payment said yes to and its
security code given, as the demo person would."""

import asyncio

import pyotp

from nod.claims.v1 import claims_pb2 as claims
from nod.claims.v1 import claims_pb2_grpc
from nod.payments.v1 import payments_pb2 as payments
from nod.payments.v1 import payments_pb2_grpc
from nod.tasks.v1 import tasks_pb2 as pb
from nod.tasks.v1 import tasks_pb2_grpc
from nodtest.make_run import MakeRun

SEED = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"  # what make run prints for the demo shop


async def run_demo_task(run: MakeRun, text: str) -> pb.Task:
    """A demo task started as the person, to its end."""
    tasks = tasks_pb2_grpc.TasksServiceStub(run.channel("tasks"))
    task = (await tasks.StartTask(pb.StartTaskRequest(text=text), metadata=run.meta())).task
    return await drive_demo_task(run, task.id)


async def drive_demo_task(
    run: MakeRun, task_id: str, *, until_wait: "pb.WaitKind.ValueType | None" = None
) -> pb.Task:
    """The person's side of a demo task: the code, the yes, the security code.
    until_wait: returns the task once it waits for the person in this way,
    unanswered (a test does something to the system there)."""
    meta = run.meta()
    vault = claims_pb2_grpc.VaultServiceStub(run.channel("claims"))
    pay = payments_pb2_grpc.PaymentsServiceStub(run.channel("payments"))
    tasks = tasks_pb2_grpc.TasksServiceStub(run.channel("tasks"))
    task = (await tasks.GetTask(pb.GetTaskRequest(task_id=task_id), metadata=meta)).task
    deadline = asyncio.get_running_loop().time() + 90
    while asyncio.get_running_loop().time() < deadline:
        task = (await tasks.GetTask(pb.GetTaskRequest(task_id=task.id), metadata=meta)).task
        if task.state in (pb.TASK_STATE_DONE, pb.TASK_STATE_FAILED, pb.TASK_STATE_STOPPED):
            return task
        wait = task.wait
        if task.state == pb.TASK_STATE_WAITING and wait.kind == until_wait:
            return task
        if task.state == pb.TASK_STATE_WAITING and wait.kind == pb.WAIT_KIND_PAYMENT:
            await pay.ConfirmPayment(
                payments.ConfirmPaymentRequest(payment_id=wait.id, decision=payments.DECISION_YES),
                metadata=meta,
            )
        elif task.state == pb.TASK_STATE_WAITING and wait.kind == pb.WAIT_KIND_PRIVATE_FORM:
            kind, fields = {
                pb.FORM_KIND_ONE_TIME_CODE: (
                    claims.ENTRY_KIND_ONE_TIME_CODE,
                    {"code": pyotp.TOTP(SEED).now()},
                ),
                pb.FORM_KIND_SECURITY_CODE: (
                    claims.ENTRY_KIND_SECURITY_CODE,
                    {"security_code": "123"},
                ),
            }[wait.form_kind]
            # As the gateway puts it: for the page the task's form names (a
            # security code goes with its card, under the card's binding).
            where = (
                {}
                if kind == claims.ENTRY_KIND_SECURITY_CODE
                else {"origin": wait.origin, "frame_origin": wait.frame_origin}
            )
            entry = await vault.PutPrivateEntry(
                claims.PutPrivateEntryRequest(task_id=task.id, kind=kind, fields=fields, **where),
                metadata=meta,
            )
            await tasks.SubmitPrivateForm(
                pb.SubmitPrivateFormRequest(task_id=task.id, form_id=wait.id, item_id=entry.id),
                metadata=meta,
            )
        await asyncio.sleep(0.2)
    raise AssertionError(f"the demo task never ended: {task}")
