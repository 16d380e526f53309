"""Call any nod service method with JSON, using server reflection.

    .venv/bin/python scripts/nodcall.py ADDRESS SERVICE/METHOD 'JSON' [--user PERSON]

The service token comes from NOD_SERVICE_TOKEN, else var/service-token (what
`make run` made). Server-streaming methods print each message as it comes.
Example:
    .venv/bin/python scripts/nodcall.py 127.0.0.1:50051 \\
        nod.claims.v1.VaultService/ListItems '{}' --user ada
"""

import argparse
import json
import os
import pathlib
import sys

import grpc
from google.protobuf import descriptor_pool, json_format, message_factory
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

ROOT = pathlib.Path(__file__).resolve().parent.parent


def token() -> str:
    if os.environ.get("NOD_SERVICE_TOKEN"):
        return os.environ["NOD_SERVICE_TOKEN"]
    return (ROOT / "var" / "service-token").read_text().strip()


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

    channel = grpc.insecure_channel(args.address)
    pool = descriptor_pool.DescriptorPool(ProtoReflectionDescriptorDatabase(channel))
    service_name, _, method_name = args.method.partition("/")
    method = pool.FindServiceByName(service_name).FindMethodByName(method_name)
    request_class = message_factory.GetMessageClass(method.input_type)
    reply_class = message_factory.GetMessageClass(method.output_type)
    request = json_format.Parse(args.request, request_class())

    metadata = [("authorization", f"Bearer {token()}")]
    if args.user:
        metadata.append(("x-nod-user", args.user))
    path = f"/{service_name}/{method_name}"
    call = (channel.unary_stream if method.server_streaming else channel.unary_unary)(
        path,
        request_serializer=request_class.SerializeToString,
        response_deserializer=reply_class.FromString,
    )
    try:
        replies = call(request, metadata=metadata, timeout=args.timeout)
        for reply in replies if method.server_streaming else [replies]:
            print(json.dumps(json_format.MessageToDict(reply), indent=2, ensure_ascii=False))
    except grpc.RpcError as error:
        print(f"{error.code().name}: {error.details()}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
