"""Builders for the claims tests: live holders, claim requests, and a
storm's caller of Claim (the saved items come from nodtest.claims, shared
with other suites)."""

import uuid
from dataclasses import dataclass, field
from typing import Any

import grpc

from nod.claims.v1 import claims_pb2 as pb
from nodtest.claims import CANARY_PASSWORD, ORIGIN, op_id
from nodtest.storms import StormTally, until_answered


async def live_holder(claims_stub, meta) -> str:
    holder = f"runner-{uuid.uuid4().hex[:8]}"
    await claims_stub.RenewHolder(pb.RenewHolderRequest(holder=holder), metadata=meta)
    return holder


def claim_request(item, holder, *, operation_id=None, task_id="task-1", origin=ORIGIN, kind=None):
    return pb.ClaimRequest(
        operation_id=operation_id or op_id(),
        kind=kind or item.kind,
        item_id=item.id,
        origin=origin,
        task_id=task_id,
        holder=holder,
    )


LOST_GRANT = "the caller lost the answer to its Claim; nothing was typed"


@dataclass
class ClaimCaller:
    """A runner's claims in a storm, as a client makes them: each Claim
    resent after an error until a definite answer, then ended (SUBMITTED
    once granted; UNCERTAIN when the answer comes from the record, since a
    call whose answer was lost had the grant and nobody holds the value).
    Counts the replies that carried the secret, per operation id."""

    claims: Any  # where Claim goes (a proxy, a failover, several replicas)
    ends: Any  # where MarkSubmitted and MarkUncertain go
    holder: str
    meta: tuple
    tally: StormTally
    tries: int = 60
    secrets_by_operation: dict[str, int] = field(default_factory=dict)

    async def claim(self, request: pb.ClaimRequest) -> pb.ClaimResponse | None:
        """The definite answer; None (and a wrong answer noted) for a
        refusal, "not granted, try again", or another claim's answer."""
        try:
            reply = await until_answered(
                lambda: self.claims.Claim(request, metadata=self.meta, timeout=10),
                self.tally,
                tries=self.tries,
            )
        except grpc.aio.AioRpcError as error:
            self.tally.wrong_answers.append(f"{error.code().name}: {error.details()}")
            return None
        operation = request.operation_id
        if reply.secret_fields:
            self.secrets_by_operation[operation] = self.secrets_by_operation.get(operation, 0) + 1
            assert reply.granted and reply.secret_fields["password"] == CANARY_PASSWORD
        if reply.claim.operation_id != operation or reply.claim.holder != self.holder:
            self.tally.wrong_answers.append(f"answered with another claim: {reply.claim}")
            return None
        return reply

    async def end(self, reply: pb.ClaimResponse) -> None:
        claim_id, holder = reply.claim.id, self.holder
        if reply.granted:
            call = lambda: self.ends.MarkSubmitted(  # noqa: E731
                pb.MarkSubmittedRequest(claim_id=claim_id, holder=holder), metadata=self.meta
            )
        elif reply.claim.state == pb.CLAIM_STATE_RUNNING:
            call = lambda: self.ends.MarkUncertain(  # noqa: E731
                pb.MarkUncertainRequest(claim_id=claim_id, holder=holder, reason=LOST_GRANT),
                metadata=self.meta,
            )
        else:
            return
        try:
            await until_answered(call, self.tally, tries=self.tries)
        except grpc.aio.AioRpcError as error:
            self.tally.wrong_answers.append(f"ending {claim_id}: {error.code().name}")

    @property
    def duplicates(self) -> int:
        return sum(n - 1 for n in self.secrets_by_operation.values() if n > 1)
