"""The claims use cases: grant an operation once, move it to its final
state, record what the page showed. Callers pass the person (`owner`)."""

import asyncio
import time
from dataclasses import dataclass, field
from datetime import datetime

from psycopg_pool import AsyncConnectionPool
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from nod_claims.app.claim_batches import ClaimBatches
from nod_claims.app.vault import ITEM_TABLE, PRIVATE_ENTRY_TABLE
from nod_claims.domain import totp
from nod_claims.domain.bindings import (
    Binding,
    CardBinding,
    CardBindingRequest,
    answer_rebind,
    bound_origins,
    card_not_bound,
    check_card_binding_request,
    check_destination,
    entry_not_bound,
    form_binding,
    saved_login_binding,
    security_code_alone,
    unique_origins,
)
from nod_claims.domain.claims import (
    SAVED_KINDS,
    CheckResult,
    ClaimRecord,
    ClaimRequest,
    ClaimState,
    EntryKind,
    OperationQuery,
    check_claim_request,
    check_operation_query,
    check_reason,
    check_saved_item,
    existing_claim_answer,
    explain_refused_check,
    explain_refused_transition,
)
from nod_claims.domain.vault import StoredItem
from nod_claims.store import bindings as bindings_repo
from nod_claims.store import claims as repo
from nod_claims.store import totp as totp_repo
from nod_claims.store import vault as vault_repo
from nod_claims.store.vault import TakenEntry
from nodkit import context, faults, listing, validation
from nodkit.crypto import Sealer, SealError
from nodkit.db import call_deadline
from nodkit.errors import FailedPrecondition, NotFound, Unavailable
from nodkit.logging import get_logger
from nodkit.metrics import count_uncertain

log = get_logger("nod_claims.claims")
# Its records in nod_uncertain_total, named as nodkit.history.move names them.
CLAIMS_TABLE = "claims"
UNREADABLE = "the saved value could not be opened; nothing was entered"
UNDELIVERED = "the grant never reached the runner (it had stopped waiting); nothing was entered"
# Part of every account key's digest context: a digest made for the TOTP
# ledger means nothing elsewhere.
ACCOUNT_KEYS = "totp_account_steps"


@dataclass(frozen=True)
class ClaimOutcome:
    granted: bool
    claim: ClaimRecord
    # Filled only when granted; the one place a private value leaves the service.
    secret_fields: dict[str, str] = field(default_factory=dict, repr=False)
    # Filled only when granted: where the values may be sent (G13).
    bound_origins: tuple[str, ...] = ()


@dataclass(frozen=True)
class HolderLease:
    lease_expires_at: datetime
    running_claims: int


@dataclass(frozen=True)
class HolderReleased:
    released: list[ClaimRecord]
    lease_expires_at: datetime


class Claims:
    def __init__(
        self,
        engine: AsyncEngine,
        hot_pool: AsyncConnectionPool,
        sealer: Sealer,
        *,
        lease_ttl_s: float,
        db_call_timeout_s: float,
        concurrent_claim_batches: int = 1,
    ) -> None:
        self._engine = engine
        self._hot_pool = hot_pool
        self._limit_s = db_call_timeout_s
        self._batches = ClaimBatches(
            hot_pool,
            concurrent=concurrent_claim_batches,
            undelivered=self._undelivered,
            limit_s=db_call_timeout_s,
        )
        self._sealer = sealer
        self._lease_ttl_s = lease_ttl_s
        self._endings: set[asyncio.Task] = set()

    async def claim(self, owner: str, request: ClaimRequest) -> ClaimOutcome:
        request = check_claim_request(request)
        if request.kind == EntryKind.SECURITY_CODE:
            raise security_code_alone()
        await faults.point("claims.claim_received")
        if (
            request.kind in SAVED_KINDS
            and request.companion_entry_id is None
            and not request.totp_code
        ):
            outcome = await self._claim_saved_item(owner, request)
        else:
            # A one-time entry, or a code's time step, is taken with the claim.
            outcome = await self._run_to_its_end(owner, request)
        if outcome is None:
            return await self._not_granted(owner, request)
        await faults.point("claims.secret_unsealed")
        if _caller_gave_up():
            # The reply can't reach anyone: nobody holds the grant.
            outcome.secret_fields.clear()
            self._undelivered(owner, outcome.claim)
            raise Unavailable("the call's deadline passed before the grant could be sent")
        # The grant is audited in claim_events; the access log has the call.
        log.debug("claim.granted", claim_id=outcome.claim.id, kind=request.kind.value)
        return outcome

    async def _run_to_its_end(self, owner: str, request: ClaimRequest) -> ClaimOutcome | None:
        """A caller that goes away mid-transaction must not leave a grant (and
        a destroyed one-time entry) that nobody holds: the transaction runs to
        its end, and a grant nobody is waiting for is ended at once. Its work
        before COMMIT stops at the caller's deadline, rolled back: a hang
        there can't hold its locks (the operation id, the entry) past it."""
        give_up_at = context.deadline.get()
        granting = context.run_detached(self._claim_with_one_time_entry(owner, request, give_up_at))
        try:
            return await asyncio.shield(granting)
        except asyncio.CancelledError:
            granting.add_done_callback(lambda task: self._after_abandoned(owner, task))
            raise

    def _after_abandoned(self, owner: str, task: asyncio.Task) -> None:
        if task.cancelled() or task.exception() is not None:
            return  # rolled back, or answered nobody: nothing was granted
        outcome = task.result()
        if outcome is not None:
            outcome.secret_fields.clear()
            self._undelivered(owner, outcome.claim)

    def _undelivered(self, owner: str, record: ClaimRecord) -> None:
        ending = context.run_detached(self._end_undelivered(owner, record))
        self._endings.add(ending)
        ending.add_done_callback(self._endings.discard)

    async def _end_undelivered(self, owner: str, record: ClaimRecord) -> None:
        try:
            await self.finish(owner, record.id, record.holder, ClaimState.UNCERTAIN, UNDELIVERED)
        except Exception:  # the max-running sweep ends it later
            log.exception("claim.undelivered_not_ended", claim_id=record.id)
            return
        log.warning("claim.undelivered", claim_id=record.id)

    async def _claim_saved_item(self, owner: str, request: ClaimRequest) -> ClaimOutcome | None:
        """The claim and its history row, or nothing (batched with others)."""
        granted = await self._batches.claim(owner, request)
        if granted is None:
            return None
        record, sealed, allowed = granted
        await faults.point("claims.claim_after_commit")
        try:
            secret = self._sealer.open_fields(sealed, owner, ITEM_TABLE, record.item_id)
        except SealError:
            # Nothing was entered; end the claim so it can't stay RUNNING.
            await self.finish(owner, record.id, record.holder, ClaimState.UNCERTAIN, UNREADABLE)
            raise
        secret.pop("totp_seed", None)  # never leaves the vault; no code was asked for
        where = request.destination
        return ClaimOutcome(True, record, secret, unique_origins([*allowed, where.frame_origin]))

    async def _claim_with_one_time_entry(
        self, owner: str, request: ClaimRequest, give_up_at: float | None
    ) -> ClaimOutcome | None:
        """A transaction: the claim, then the one-time entry taken (deleted) or
        the code's time step taken with it. Any error rolls them all back:
        nothing was granted, nothing destroyed, no step used.
        What comes before COMMIT gives up at `give_up_at` (the caller's
        deadline) with a TimeoutError, rolled back; COMMIT itself is never cut
        off by it, so its outcome is always known here."""
        async with self._engine.begin() as conn:
            async with asyncio.timeout_at(give_up_at):
                record = await repo.insert_running_claim(conn, owner, request)
                if record is None:
                    return None
                # A claim outside its binding raises here: the insert is rolled back.
                secret, bound = await self._take_secret(conn, owner, request, record.id)
                await repo.add_event(
                    conn,
                    record.id,
                    actor=request.holder,
                    from_state=None,
                    to_state=ClaimState.RUNNING,
                )
                await faults.point("claims.claim_before_commit")
        return ClaimOutcome(True, record, secret, bound)

    async def _not_granted(self, owner: str, request: ClaimRequest) -> ClaimOutcome:
        """Says why nothing was granted; writes nothing."""
        async with self._engine.connect() as conn:
            existing = await repo.get_by_operation(conn, owner, request.operation_id)
            if existing is not None:
                log.info("claim.not_granted", claim_id=existing.id, state=existing.state.value)
                return ClaimOutcome(False, existing_claim_answer(existing, request))
            if request.kind in SAVED_KINDS:
                check_saved_item(await vault_repo.get_item(conn, owner, request.item_id), request)
            if request.kind == EntryKind.CARD:
                await self._card_binding(conn, owner, request)
            live = await repo.holder_is_live(conn, request.holder)
        if not live:
            raise FailedPrecondition(
                "the holder has no live lease; it must call RenewHolder first",
                reason="HOLDER_LEASE_EXPIRED",
            )
        # The one-time entry path raises its own errors; reaching here means a
        # concurrent change (the item deleted or re-pointed) won the race.
        raise FailedPrecondition("the claim could not be made; try a new operation", reason="RACED")

    async def _take_secret(
        self, conn, owner: str, request: ClaimRequest, claim_id: str
    ) -> tuple[dict[str, str], tuple[str, ...]]:
        """The values to grant and where they may go; raises, writing
        nothing, for a value outside its binding."""
        if request.kind in SAVED_KINDS:
            found = await vault_repo.get_item(conn, owner, request.item_id)
            item = check_saved_item(found, request)
            if request.kind == EntryKind.CARD:
                binding = await self._card_binding(conn, owner, request)
            else:
                binding = saved_login_binding(item.origin or "", item.equivalent_origins)
            fields = self._sealer.open_fields(item.sealed_fields, owner, ITEM_TABLE, item.id)
            seed = fields.pop("totp_seed", "")  # never leaves the vault
            if request.totp_code and seed:  # without one, the runner finds no code
                fields |= await self._take_code(
                    conn, owner, item, fields["username"], seed, claim_id
                )
            if request.companion_entry_id is not None:
                # The security code goes with its card, under the card's binding.
                companion = await self._take_entry(
                    conn,
                    owner,
                    request.companion_entry_id,
                    EntryKind.SECURITY_CODE,
                    request.task_id,
                )
                fields |= self._open_entry(owner, companion)
            return fields, bound_origins(binding, request.destination)
        entry = await self._take_entry(conn, owner, request.item_id, request.kind, request.task_id)
        if entry.origin is None:
            raise entry_not_bound()
        binding = form_binding(entry.origin, entry.frame_origin or entry.origin)
        check_destination(binding, request.destination)
        return self._open_entry(owner, entry), bound_origins(binding, request.destination)

    async def _take_code(
        self,
        conn: AsyncConnection,
        owner: str,
        item: StoredItem,
        username: str,
        seed: str,
        claim_id: str,
    ) -> dict[str, str]:
        """The code of the first time step free for the login's account (this
        one or the next), the step taken under every key of the account with
        the claim; or the claim is refused. The code is made here, so a seed
        that can't make one refuses the claim too."""
        assert item.origin is not None  # a saved login's, checked when saved
        keys = self._account_keys(totp.account_of(item.origin, username, seed))
        now_step = totp.step_at(time.time())
        steps = totp.steps_to_try(now_step)
        for step in steps:
            granted = totp.grant(seed, step)
            taken = await totp_repo.take_step(
                conn, keys, owner=owner, item_id=item.id, step=step, claim_id=claim_id
            )
            if taken:
                log.info("claim.totp_step", claim_id=claim_id, step=step, ahead=step - now_step)
                return {"totp_code": granted.code, "totp_not_before": str(granted.not_before)}
        log.info("claim.no_code_step_free", item_id=item.id, last_step=steps[-1])
        raise totp.no_step_free(time.time(), steps[-1])

    def _account_keys(self, account: totp.Account) -> list[str]:
        """Keyed digests only: the table never holds a username or a seed."""
        by_login = self._sealer.digests(account.username, ACCOUNT_KEYS, "login", account.origin)
        return by_login + self._sealer.digests(account.seed, ACCOUNT_KEYS, "seed")

    async def _card_binding(self, conn, owner: str, request: ClaimRequest) -> Binding:
        """The card's binding for this operation, checked against where the
        claim would send it."""
        found = await bindings_repo.get_binding(conn, owner, request.operation_id)
        if found is None or not found.binds(request.item_id, request.task_id):
            raise card_not_bound()
        binding = found.binding()
        check_destination(binding, request.destination)
        return binding

    async def _take_entry(self, conn, owner, entry_id, kind, task_id) -> TakenEntry:
        entry = await vault_repo.take_private_entry(conn, owner, entry_id)
        if entry is None or entry.kind != kind or entry.task_id != task_id:
            raise NotFound(
                "no unused private entry of that kind for this task", reason="ENTRY_NOT_FOUND"
            )
        return entry

    def _open_entry(self, owner: str, entry: TakenEntry) -> dict[str, str]:
        return self._sealer.open_fields(entry.sealed_fields, owner, PRIVATE_ENTRY_TABLE, entry.id)

    async def bind_card_entry(self, owner: str, request: CardBindingRequest) -> CardBinding:
        """Where the card of one card operation may go, registered once: a
        resend with the same content answers the first binding, writing
        nothing; other content is refused (the first binding stands)."""
        request = check_card_binding_request(request)
        async with self._engine.begin() as conn:
            # Only the person's own saved card is bound (another's looks like none).
            card = await vault_repo.get_item(conn, owner, request.item_id)
            if card is None or card.kind != EntryKind.CARD:
                raise NotFound("item_id names no saved card", reason="ITEM_NOT_FOUND")
            made = await bindings_repo.insert_binding(conn, owner, request)
            # The unique key held a racing first binding: read the winner's.
            first = made or await bindings_repo.get_binding(conn, owner, request.operation_id)
        if first is None:  # bindings are never deleted
            raise Unavailable("the binding could not be read back; try again")
        if made is not None:
            log.info("card.bound", operation_id=request.operation_id, task_id=request.task_id)
            return made
        return answer_rebind(first, request)

    async def finish(
        self, owner: str, claim_id: str, holder: str, target: ClaimState, reason: str = ""
    ) -> ClaimRecord:
        claim_id = validation.uuid_id("claim_id", claim_id)
        holder = validation.printable_id("holder", holder)
        reason = check_reason(reason)
        async with asyncio.timeout_at(call_deadline(self._limit_s)):
            async with self._hot_pool.connection() as hot:
                record = await repo.finish_running_now(hot, owner, claim_id, holder, target, reason)
        if record is not None:
            log.info("claim.finished", claim_id=claim_id, state=target.value)
            if target == ClaimState.UNCERTAIN:  # autocommit: it is committed already
                count_uncertain(CLAIMS_TABLE)
            return record
        async with self._engine.connect() as conn:
            existing = await repo.get_claim(conn, owner, claim_id)
        if existing is None:
            raise NotFound("no such claim", reason="CLAIM_NOT_FOUND")
        return explain_refused_transition(existing, target, holder)

    async def record_check(self, owner: str, claim_id: str, check: CheckResult) -> ClaimRecord:
        claim_id = validation.uuid_id("claim_id", claim_id)
        async with self._engine.begin() as conn:
            record = await repo.record_check(conn, owner, claim_id, check)
            if record is not None:
                return record
            existing = await repo.get_claim(conn, owner, claim_id)
        if existing is None:
            raise NotFound("no such claim", reason="CLAIM_NOT_FOUND")
        return explain_refused_check(existing, check)

    async def get(self, owner: str, claim_id: str) -> ClaimRecord:
        claim_id = validation.uuid_id("claim_id", claim_id)
        async with self._engine.connect() as conn:
            record = await repo.get_claim(conn, owner, claim_id)
        if record is None:
            raise NotFound("no such claim", reason="CLAIM_NOT_FOUND")
        return record

    async def events(self, owner: str, claim_id: str):
        record = await self.get(owner, claim_id)
        async with self._engine.connect() as conn:
            return await repo.list_events(conn, record.id)

    async def find(self, owner: str, query: OperationQuery) -> ClaimRecord | None:
        """The operation's claim, if it was claimed (a runner's look before it
        touches the page); a claim of the id for another entry is refused."""
        query = check_operation_query(query)
        async with self._engine.connect() as conn:
            existing = await repo.get_by_operation(conn, owner, query.operation_id)
        return existing_claim_answer(existing, query) if existing else None

    async def list(
        self,
        owner: str,
        *,
        task_id: str | None,
        state: ClaimState | None,
        page: listing.PageRequest,
    ) -> listing.Page[ClaimRecord]:
        if task_id is not None:
            task_id = validation.printable_id("task_id", task_id)
        async with self._engine.connect() as conn:
            return await repo.list_claims(conn, owner, task_id=task_id, state=state, page=page)

    async def renew_holder(self, holder: str) -> HolderLease:
        holder = validation.printable_id("holder", holder)
        async with self._engine.begin() as conn:
            expires = await repo.renew_lease(conn, holder, self._lease_ttl_s)
            running = await repo.count_running_claims_of(conn, holder)
        return HolderLease(expires, running)

    async def release_holder(self, holder: str, reason: str) -> HolderReleased:
        """A runner that restarted: whatever it was entering may or may not
        have reached the site, so its RUNNING claims end UNCERTAIN (G12)."""
        holder = validation.printable_id("holder", holder)
        reason = check_reason(reason) or "the runner holding it restarted"
        async with self._engine.begin() as conn:
            released = await repo.release_holder(conn, holder, reason)
            expires = await repo.renew_lease(conn, holder, self._lease_ttl_s)
        log.info("holder.released", holder=holder, claims=len(released))
        return HolderReleased(released, expires)


def _caller_gave_up() -> bool:
    deadline = context.deadline.get()
    return deadline is not None and asyncio.get_running_loop().time() > deadline
