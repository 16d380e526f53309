"""python -m nod_demo.shop [--host H] [--port P] [--account user:password[:totp_seed]]

Prints `listening http://HOST:PORT` as its first line, then serves until stopped."""

import argparse
import asyncio

from nod_demo.shop.server import DEFAULT_HOST, start_shop
from nod_demo.shop.state import Account


def parse_account(text: str) -> Account:
    username, _, rest = text.partition(":")
    password, _, seed = rest.partition(":")
    if not username or not password:
        raise argparse.ArgumentTypeError("use user:password or user:password:totp_seed")
    return Account(username, password, seed or None)


async def main(args: argparse.Namespace) -> None:
    shop = await start_shop(args.account, host=args.host, port=args.port)
    print(f"listening {shop.url}", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await shop.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m nod_demo.shop")
    parser.add_argument("--host", default=DEFAULT_HOST)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--account", type=parse_account, action="append", default=[])
    try:
        asyncio.run(main(parser.parse_args()))
    except KeyboardInterrupt:
        pass
