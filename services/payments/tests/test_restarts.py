"""Restarts with real processes (G12): a cut-off card entry ends UNCERTAIN,
only its own instance's or a dead instance's, never a live one's."""

import signal
import uuid
from contextlib import AsyncExitStack

from nod.payments.v1 import payments_pb2 as pb
from nod.payments.v1 import payments_pb2_grpc
from nod_payments.recovery import LEASE_EXPIRED, RESTARTED, TOO_LONG
from nodkit.client import open_channel
from nodtest.processes import run_migrate

from .support import (
    confirmed_payment,
    get_payment,
    running_payment,
    transitions,
    wait_for_state,
)

QUICK = {"lease_ttl_s": 1.5, "sweep_interval_s": 0.2}


def instance(name: str) -> str:
    return f"payments-{name}-{uuid.uuid4().hex[:6]}"


async def stub_for(stack: AsyncExitStack, address: str):
    channel = await stack.enter_async_context(open_channel(address))
    return payments_pb2_grpc.PaymentsServiceStub(channel)


async def test_a_killed_instance_ends_its_card_entry_uncertain_on_restart(
    payments_processes, payments_engine, service_env, as_person
):
    run_migrate("nod_payments", service_env)  # at head already: changes nothing
    name = instance("a")
    async with AsyncExitStack() as stack:
        process, address = await payments_processes(name)
        stub = await stub_for(stack, address)
        cut_off = await running_payment(stub, as_person)
        waiting = await confirmed_payment(stub, as_person)
        process.kill(signal.SIGKILL)

        _, address = await payments_processes(name)
        stub = await stub_for(stack, address)
        after = await get_payment(stub, as_person, cut_off.id)
        assert after.state == pb.PAYMENT_STATE_UNCERTAIN
        assert after.reason == RESTARTED
        assert (await transitions(payments_engine, cut_off.id))[-1] == (
            "running",
            "uncertain",
            f"boot:{name}",
        )
        # Nothing had reached a site for the confirmed one: it stays as it was.
        assert await get_payment(stub, as_person, waiting.id) == waiting


async def test_replicas_touch_only_their_own_or_dead_instances_payments(
    payments_processes, payments_engine, as_person
):
    a, b, c = instance("a"), instance("b"), instance("c")
    async with AsyncExitStack() as stack:
        process_a, address_a = await payments_processes(a, **QUICK)
        process_b, address_b = await payments_processes(b, **QUICK)
        on_a = await running_payment(await stub_for(stack, address_a), as_person)
        on_b = await running_payment(await stub_for(stack, address_b), as_person)

        process_a.kill(signal.SIGKILL)
        _, address_a = await payments_processes(a, **QUICK)
        stub = await stub_for(stack, address_a)
        assert (await get_payment(stub, as_person, on_a.id)).state == pb.PAYMENT_STATE_UNCERTAIN
        assert await get_payment(stub, as_person, on_b.id) == on_b

        # C dies for good: once its lease runs out a live replica sweeps its
        # entry. B started earlier and is alive, so its entry is left alone.
        process_c, address_c = await payments_processes(c, **QUICK)
        on_c = await running_payment(await stub_for(stack, address_c), as_person)
        process_c.kill(signal.SIGKILL)
        swept = await wait_for_state(stub, as_person, on_c.id, pb.PAYMENT_STATE_UNCERTAIN)
        assert swept.reason == LEASE_EXPIRED
        assert await get_payment(stub, as_person, on_b.id) == on_b

        process_b.kill(signal.SIGKILL)
        await wait_for_state(stub, as_person, on_b.id, pb.PAYMENT_STATE_UNCERTAIN)
        assert (await transitions(payments_engine, on_b.id))[-1] == (
            "running",
            "uncertain",
            f"sweeper:{a}",
        )


async def test_no_payment_stays_running_past_its_limit_even_on_a_live_instance(
    payments_processes, payments_engine, as_person
):
    """The caller entering the card was cut off and never came back (its
    own clean-up lost): the payment still gets a definite end."""
    name = instance("limit")
    async with AsyncExitStack() as stack:
        _, address = await payments_processes(name, sweep_interval_s=0.2, max_running_s=1)
        stub = await stub_for(stack, address)
        running = await running_payment(stub, as_person)
        waiting = await confirmed_payment(stub, as_person)

        after = await wait_for_state(stub, as_person, running.id, pb.PAYMENT_STATE_UNCERTAIN)
        assert after.reason == TOO_LONG
        assert (await transitions(payments_engine, running.id))[-1] == (
            "running",
            "uncertain",
            f"sweeper:{name}",
        )
        assert await get_payment(stub, as_person, waiting.id) == waiting
