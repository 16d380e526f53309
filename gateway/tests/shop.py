"""What the demo shop and app received, from their own counters."""

import json
import urllib.request

from nodtest.codes import unused_code, wrong_code

# The seed make run prints for the demo shop's one-time codes.
SHOP_TOTP_SEED = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"


def shop_counts(shop_url: str) -> dict[str, int]:
    with urllib.request.urlopen(f"{shop_url}/_control/counts", timeout=5) as reply:
        return json.load(reply)["counts"]


async def one_time_code() -> str:
    return await unused_code(SHOP_TOTP_SEED)


def a_wrong_code() -> str:
    return wrong_code(SHOP_TOTP_SEED)
