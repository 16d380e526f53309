"""Payments under lost commits and lost answers: CreatePayment,
ConfirmPayment, StartCardEntry and RecordUncertain through a link that loses
answers and drops or delays requests, on a database link that drops
connections right after or right before a COMMIT, delays commits and is cut.
Each caller resends the same request after an error, as a client does.

What must hold: a resent CreatePayment finds the payment its request made
(one per request id); a resent yes finds the payment confirmed; a card
entry is started once: a resent StartCardEntry is refused ALREADY_STARTED,
never answered as a first start (its runner then records the entry
UNCERTAIN); every payment's history has each change once; none is left
RUNNING."""

import random

import grpc
import pytest

from nod.payments.v1 import payments_pb2 as pb
from nod.payments.v1 import payments_pb2_grpc
from nodkit.client import NodRpcError, open_channel
from nodtest.fault_proxy import GrpcFaultProxy, PostgresFaultProxy
from nodtest.soak_report import soak_scale
from nodtest.storms import (
    StormTally,
    arm_at_random,
    every_fault,
    fast_reconnect_channel,
    run_storm,
    until_answered,
)

from .conftest import start_payments_server
from .support import SavedCards, create_request

pytestmark = pytest.mark.storm

# For each of CreatePayment, ConfirmPayment and StartCardEntry (RecordUncertain rides along).
INJECTIONS_PER_CALL = 200
CALLERS = 8
CUT_OFF = "the runner lost the answer to its start; nothing was typed"


@pytest.mark.timeout(300 * soak_scale())
async def test_a_storm_of_lost_commits_and_answers_starts_each_entry_once(
    payments_migrated, service_token, claims_peer, log_tee, as_person, person, db
):
    tally = StormTally("payments.Create+Confirm+StartCardEntry")
    to_database = await PostgresFaultProxy.for_url(payments_migrated)
    running = await start_payments_server(
        to_database.url_for(payments_migrated),
        service_token,
        instance_id="payments-commit-faults",
        claims_addr=claims_peer.address,
        db_call_timeout_s=5.0,
    )
    to_payments = await GrpcFaultProxy.for_address(running.address)
    channel = fast_reconnect_channel(to_payments.address)
    proxied = payments_pb2_grpc.PaymentsServiceStub(channel)
    direct_channel = open_channel(running.address)
    direct = payments_pb2_grpc.PaymentsServiceStub(direct_channel)
    rng = random.Random(20261204)
    faults = every_fault(to_database, to_payments)
    request_ids: set[str] = set()
    card = await SavedCards.one(as_person)  # a card entry binds a saved card only

    async def answered(call, what: str):
        try:
            return await until_answered(call, tally)
        except grpc.aio.AioRpcError as error:
            tally.wrong_answers.append(f"{what}: {error.code().name} {error.details()}")
            return None

    async def start_entry(payment_id: str) -> bool:
        """True once this runner may enter the card (or must treat it as started)."""
        begin = pb.StartCardEntryRequest(payment_id=payment_id)
        resent = False
        while True:
            try:
                started = await proxied.StartCardEntry(begin, metadata=as_person, timeout=10)
            except grpc.aio.AioRpcError as error:
                if NodRpcError(error).may_have_happened:
                    resent = True
                    tally.resends += 1
                    continue
                if resent and NodRpcError(error).reason == "ALREADY_STARTED":
                    return True  # its own start, answer lost: never a second first start
                tally.wrong_answers.append(f"StartCardEntry: {error.code().name}")
                return False
            if not started.card_operation_id:
                tally.wrong_answers.append(f"{payment_id}: a start without an operation id")
            return True

    async def one_operation() -> None:
        request = create_request(card_item_id=card)
        request_ids.add(request.request_id)
        arm_at_random(rng, faults, delay_s=0.2)
        created = await answered(
            lambda: proxied.CreatePayment(request, metadata=as_person, timeout=10), "Create"
        )
        if created is None:
            return
        payment_id = created.payment.id
        yes = pb.ConfirmPaymentRequest(payment_id=payment_id, decision=pb.DECISION_YES)
        arm_at_random(rng, faults, delay_s=0.2)
        confirmed = await answered(
            lambda: proxied.ConfirmPayment(yes, metadata=as_person, timeout=10), "Confirm"
        )
        if confirmed is None or confirmed.payment.state != pb.PAYMENT_STATE_CONFIRMED:
            tally.wrong_answers.append(f"{payment_id}: the yes was answered {confirmed}")
            return
        arm_at_random(rng, faults, delay_s=0.2)
        if not await start_entry(payment_id):
            return
        # The runner is cut off before typing (or never heard it may type):
        # it records the entry UNCERTAIN, resending until it is on record.
        cut_off = pb.RecordUncertainRequest(payment_id=payment_id, reason=CUT_OFF)
        ended = await answered(
            lambda: direct.RecordUncertain(cut_off, metadata=as_person, timeout=10), "Uncertain"
        )
        if ended is not None and ended.payment.state != pb.PAYMENT_STATE_UNCERTAIN:
            tally.wrong_answers.append(f"{payment_id}: ended {ended.payment.state}")

    target = 3 * INJECTIONS_PER_CALL * soak_scale()
    proxies = (to_database, to_payments)
    try:
        elapsed = await run_storm(target, CALLERS, proxies, one_operation, tally)
    finally:
        await channel.close()
        await direct_channel.close()
        await to_payments.close()
        await running.stop()
        await to_database.close()

    found = await db.execute(
        "SELECT p.request_id, p.state,"
        " array_agg(coalesce(e.from_state, '-') || '>' || e.to_state ORDER BY e.id)"
        " FROM payments.payments p JOIN payments.payment_events e ON e.payment_id = p.id"
        " WHERE p.owner = %s GROUP BY p.id",
        (person,),
    )
    rows = await found.fetchall()
    tally.duplicates = len(rows) - len({request_id for request_id, _, _ in rows})
    tally.uncertain = sum(1 for _, state, _ in rows if state == "uncertain")
    tally.running_left = sum(1 for _, state, _ in rows if state == "running")
    tally.report(*proxies)
    print(f"[{tally.name}] {elapsed:.1f} s")
    assert tally.wrong_answers == []
    assert tally.duplicates == 0
    assert {request_id for request_id, _, _ in rows} == request_ids
    assert tally.running_left == 0
    for request_id, state, history in rows:
        assert len(history) == len(set(history)), f"{request_id}: a change made twice {history}"
        assert state == "uncertain", f"{request_id} ended {state}: {history}"
