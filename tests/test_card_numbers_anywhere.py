"""A card number can't be stored verbatim in any free-text field of any
service, nor come back (G8): every string field of every request (built from
the protos' descriptors, however deep: nested messages, a map's keys and
values, a Struct's keys, values and lists) is given, in turn, a text holding
a card number in a shape hypothesis draws (nodtest.card_shapes: any grouping
and separator, next to letters or other numbers), in a request otherwise
good enough to be taken (the owner's real objects, as the authorization test
builds them). After each call no reply or status holds it, and no row of any
table of any service does. Run against the whole system as `make run`
starts it."""

import asyncio
import re
from collections.abc import Iterator

import grpc
import psycopg
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nod.claims.v1 import claims_pb2
from nod.tasks.v1 import tasks_pb2
from nodkit.cards import card_numbers_in
from nodtest.card_shapes import card_texts
from nodtest.make_run import MakeRun

from .descriptor_calls import every_method, is_plain_message, path_of
from .hostile import text_fields
from .owned_objects import WAITING_TASK, OwnersObjects, Stubs, fresh, settled_task
from .person_requests import owners_request, short_name

CALL_TIMEOUT_S = 15
# Each draws a shape for every string field of the method's request.
EXAMPLES_PER_METHOD = 2
# Where a path goes into a map or a Struct, rather than naming a field.
KEY, VALUE, LISTED = "<key>", "<value>", "<listed>"

Path = tuple[str, ...]


def string_paths(descriptor: Descriptor, depth: int = 0) -> Iterator[Path]:
    """Every place a request of this type carries text."""
    for field in descriptor.fields:
        nested = field.message_type
        if nested is None:
            if field.type == FieldDescriptor.TYPE_STRING:
                yield (field.name,)
        elif nested.GetOptions().map_entry:
            if nested.fields_by_name["key"].type == FieldDescriptor.TYPE_STRING:
                yield (field.name, KEY)
            if nested.fields_by_name["value"].type == FieldDescriptor.TYPE_STRING:
                yield (field.name, VALUE)
        elif nested.full_name == "google.protobuf.Struct":
            yield from ((field.name, where) for where in (KEY, VALUE, LISTED))
        elif is_plain_message(nested) and depth < 2 and not field.is_repeated:
            yield from ((field.name, *rest) for rest in string_paths(nested, depth + 1))


def with_text(base: Message, path: Path, text: str) -> Message:
    request = type(base)()
    request.CopyFrom(base)
    *outer, last = path
    if last in (KEY, VALUE, LISTED):
        *outer, name = outer
    target: Message = request
    for step in outer:
        target = getattr(target, step)
    if last not in (KEY, VALUE, LISTED):
        if target.DESCRIPTOR.fields_by_name[last].is_repeated:
            getattr(target, last).append(text)
        else:
            setattr(target, last, text)
        return request
    values = getattr(target, name)
    if target.DESCRIPTOR.fields_by_name[name].message_type.full_name == "google.protobuf.Struct":
        values.update(
            {KEY: {text: "x"}, VALUE: {"note": text}, LISTED: {"lines": ["ok", text]}}[last]
        )
    elif last == KEY:
        values[text] = next(iter(values.values()), "x")
    else:
        values[next(iter(values), "note")] = text
    return request


def with_fresh_ids(request: Message, path: Path) -> Message:
    """A caller's request and operation ids made anew (but where the text
    goes): a reused one would be refused before the text is looked at."""
    for name in ("request_id", "operation_id"):
        if name in request.DESCRIPTOR.fields_by_name and path != (name,) and getattr(request, name):
            setattr(request, name, fresh(name.split("_")[0]))
    return request


def call(channel: grpc.Channel, method: MethodDescriptor, request: Message, metadata):
    """(the code, what the caller saw of an error, the reply (a stream's first))."""
    reply_class = message_factory.GetMessageClass(method.output_type)
    kwargs = {
        "request_serializer": type(request).SerializeToString,
        "response_deserializer": reply_class.FromString,
    }
    try:
        if method.server_streaming:
            stream = channel.unary_stream(path_of(method), **kwargs)(
                request, metadata=metadata, timeout=CALL_TIMEOUT_S
            )
            reply = next(stream, None)
            stream.cancel()
        else:
            reply = channel.unary_unary(path_of(method), **kwargs)(
                request, metadata=metadata, timeout=CALL_TIMEOUT_S
            )
    except grpc.RpcError as error:
        trailing = b"".join(
            value if isinstance(value, bytes) else str(value).encode()
            for _, value in (error.trailing_metadata() or ())  # type: ignore[attr-defined]
        )
        seen = (error.details() or "") + trailing.decode(errors="replace")  # type: ignore[attr-defined]
        return error.code(), seen, None  # type: ignore[attr-defined]
    return grpc.StatusCode.OK, "", reply


def rows_as_text(conn: psycopg.Connection) -> list[str]:
    """Every row of every table of every service's schema."""
    tables = conn.execute(
        "SELECT table_schema, table_name FROM information_schema.tables"
        " WHERE table_type = 'BASE TABLE'"
        " AND table_schema NOT IN ('pg_catalog', 'information_schema')"
    ).fetchall()
    rows: list[str] = []
    for schema, table in tables:
        rows += [row for (row,) in conn.execute(f'SELECT t::text FROM "{schema}"."{table}" t')]
    return rows


class Builder:
    """Each method's good request, naming the owner's real objects; made once,
    on its own event loop (the test itself calls synchronously)."""

    def __init__(self, run: MakeRun) -> None:
        self._loop = asyncio.new_event_loop()
        self.meta = run.meta("ada")
        self._stubs, self._waiting, self._holder = self._loop.run_until_complete(self._setting(run))
        self._shop = re.search(r"demo shop: (\S+)", run.log_text()).group(1)  # type: ignore[union-attr]
        self._made: dict[str, tuple[OwnersObjects, Message]] = {}

    async def _setting(self, run: MakeRun):
        stubs = Stubs(run)
        started = await stubs.tasks.StartTask(
            tasks_pb2.StartTaskRequest(text=WAITING_TASK, request_id=fresh("wait")),
            metadata=self.meta,
        )
        waiting = await settled_task(stubs, self.meta, started.task.id, timeout_s=120)
        holder = fresh("runner")
        await stubs.claims.RenewHolder(
            claims_pb2.RenewHolderRequest(holder=holder), metadata=self.meta
        )
        return stubs, waiting, holder

    def request(self, method: MethodDescriptor) -> Message:
        # The runner lease the claims name lasts 30 s: renewed before each
        # method's request, since the whole module takes minutes on a
        # loaded machine (and a request that needs a claim needs it live).
        renew = claims_pb2.RenewHolderRequest(holder=self._holder)
        self._loop.run_until_complete(self._stubs.claims.RenewHolder(renew, metadata=self.meta))
        name = short_name(method)
        if name not in self._made:
            owners = OwnersObjects(self._stubs, self.meta, self._waiting, self._holder)
            made = self._loop.run_until_complete(owners_request(method, owners, self._shop))
            self._made[name] = (owners, made)
        return self._made[name][1]

    def close(self) -> None:
        for owners, _ in self._made.values():
            self._loop.run_until_complete(owners.close_session())
        self._loop.close()


@pytest.fixture(scope="module")
def builder(made_run):
    made = Builder(made_run)
    yield made
    made.close()


@pytest.fixture(scope="module")
def database(made_run):
    with psycopg.connect(made_run.database_url().replace("+psycopg", ""), autocommit=True) as conn:
        yield conn


@pytest.fixture(scope="module")
def made_run_channels(made_run):
    opened = {name: grpc.insecure_channel(made_run.addresses[name]) for name in made_run.addresses}
    yield opened
    for channel in opened.values():
        channel.close()


METHODS = [
    (service, method) for service, method in every_method() if any(string_paths(method.input_type))
]


@pytest.mark.parametrize(
    ("service", "method"), METHODS, ids=[short_name(m).replace("/", ".") for _, m in METHODS]
)
@settings(
    max_examples=EXAMPLES_PER_METHOD,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(data=st.data())
def test_a_card_number_in_any_string_field_is_never_returned_or_stored(
    builder, database, made_run_channels, service, method, data
):
    base = builder.request(method)
    for path in string_paths(method.input_type):
        number, text = data.draw(card_texts(), label=".".join(path))
        request = with_fresh_ids(with_text(base, path, text), path)
        where = (short_name(method), ".".join(path), text)

        code, error, reply = call(made_run_channels[service], method, request, builder.meta)

        assert code not in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN), (where, error)
        returned = [error] + (text_fields(reply) if reply is not None else [])
        assert not [t for t in returned if number in t or text in t], where
        assert not [found for t in returned for found in card_numbers_in(t)], where
        rows = rows_as_text(database)
        assert not [row for row in rows if number in row or text in row], where
        assert not [found for row in rows for found in card_numbers_in(row)], where
