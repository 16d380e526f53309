"""Call any nod service method with JSON, using server reflection (grpcurl,
installed by `make setup` as .venv/bin/grpcurl, does the same).

    .venv/bin/python scripts/nodcall.py ADDRESS SERVICE/METHOD 'JSON' [--user PERSON_ID]

The service token comes from NOD_SERVICE_TOKEN, else var/service-token (what
`make run` made). With NOD_TLS_CERT_FILE, NOD_TLS_KEY_FILE and NOD_TLS_CA_FILE
set (as a service reads them: a certificate whose service may make the call)
it calls over TLS, checking that the server is the service the method
belongs to, and sends a token only if NOD_SERVICE_TOKEN is set.
Server-streaming methods print each message as it comes.
A refusal prints its code, message, ErrorInfo reason and the bad field.
Example:
    .venv/bin/python scripts/nodcall.py 127.0.0.1:50051 \\
        nod.claims.v1.VaultService/ListItems '{}' --user "$ADA"
"""

import argparse
import json
import os
import pathlib
import sys

import grpc
from google.protobuf import descriptor_pool, json_format, message_factory
from google.rpc import error_details_pb2
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)
from grpc_status import rpc_status

ROOT = pathlib.Path(__file__).resolve().parent.parent


class Mistake(Exception):
    """Something the caller can fix, said in one line."""


def token(*, tls: bool) -> str | None:
    """Over TLS the certificate names the caller: a token goes beside it
    only when NOD_SERVICE_TOKEN gives one."""
    if os.environ.get("NOD_SERVICE_TOKEN"):
        return os.environ["NOD_SERVICE_TOKEN"]
    path = ROOT / "var" / "service-token"
    if tls:
        return None
    if not path.exists():
        raise Mistake("no service token: set NOD_SERVICE_TOKEN, or start nod with `make run`")
    return path.read_text().strip()


def find_method(channel: grpc.Channel, full_name: str):
    service_name, _, method_name = full_name.partition("/")
    pool = descriptor_pool.DescriptorPool(ProtoReflectionDescriptorDatabase(channel))
    try:
        service = pool.FindServiceByName(service_name)
    except KeyError:
        raise Mistake(
            f"no service {service_name!r} there (see docs/DESIGN.md for the names)"
        ) from None
    method = service.methods_by_name.get(method_name)
    if method is None:
        names = ", ".join(sorted(service.methods_by_name))
        raise Mistake(f"{service_name} has no method {method_name!r}; it has: {names}")
    return service_name, method


def describe(error: grpc.RpcError) -> str:
    """CODE: message [reason REASON] [field FIELD]."""
    line = f"{error.code().name}: {error.details()}"
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    for detail in status.details if status else ():
        info, bad = error_details_pb2.ErrorInfo(), error_details_pb2.BadRequest()
        if detail.Unpack(info):
            line += f" [reason {info.reason}]"
        elif detail.Unpack(bad):
            line += "".join(f" [field {v.field}]" for v in bad.field_violations)
    return line


def open_channel(address: str, method: str) -> grpc.Channel:
    """Plaintext, or TLS when the NOD_TLS_* files are set; the server must
    be the service of `method` (nod.claims.v1.VaultService/... -> claims)."""
    files = [os.environ.get(f"NOD_TLS_{name}_FILE") for name in ("CERT", "KEY", "CA")]
    if not any(files):
        return grpc.insecure_channel(address)
    if not all(files):
        raise Mistake("set NOD_TLS_CERT_FILE, NOD_TLS_KEY_FILE and NOD_TLS_CA_FILE together")
    cert, key, ca = (pathlib.Path(f).read_bytes() for f in files if f)
    credentials = grpc.ssl_channel_credentials(ca, private_key=key, certificate_chain=cert)
    service = method.split(".")[1] if method.startswith("nod.") else None
    options = [("grpc.ssl_target_name_override", service)] if service else []
    return grpc.secure_channel(address, credentials, options=options)


def call(args: argparse.Namespace) -> int:
    channel = open_channel(args.address, args.method)
    try:
        service_name, method = find_method(channel, args.method)
    except grpc.RpcError as error:
        raise Mistake(f"could not reach {args.address}: {error.code().name}") from None
    request_class = message_factory.GetMessageClass(method.input_type)
    reply_class = message_factory.GetMessageClass(method.output_type)
    try:
        request = json_format.Parse(args.request, request_class())
    except json_format.ParseError as bad:
        raise Mistake(f"the request is not a {method.input_type.name} in JSON: {bad}") from None
    bearer = token(tls=bool(os.environ.get("NOD_TLS_CERT_FILE")))
    metadata = [("authorization", f"Bearer {bearer}")] if bearer else []
    if args.user:
        metadata.append(("x-nod-user", args.user))
    path = f"/{service_name}/{method.name}"
    stub = (channel.unary_stream if method.server_streaming else channel.unary_unary)(
        path,
        request_serializer=request_class.SerializeToString,
        response_deserializer=reply_class.FromString,
    )
    try:
        replies = stub(request, metadata=metadata, timeout=args.timeout)
        for reply in replies if method.server_streaming else [replies]:
            print(json.dumps(json_format.MessageToDict(reply), indent=2, ensure_ascii=False))
    except grpc.RpcError as error:
        print(describe(error), file=sys.stderr)
        return 1
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("address")
    parser.add_argument("method", help="e.g. nod.claims.v1.VaultService/ListItems")
    parser.add_argument("request", nargs="?", default="{}", help="the request as JSON")
    parser.add_argument("--user", help="the person the call acts for (x-nod-user)")
    parser.add_argument("--timeout", type=float, default=30.0)
    args = parser.parse_args()
    try:
        return call(args)
    except Mistake as mistake:
        print(f"nodcall: {mistake}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
