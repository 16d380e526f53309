"""The demo web shop: a real local website with sign-in, a one-time-code step
and a card checkout, which counts every form submission it receives and can
be told to hold, drop or slow them down (so tests can lose a response)."""

from nod_demo.shop.server import RunningShop, start_shop
from nod_demo.shop.state import Account, ShopState

__all__ = ["Account", "RunningShop", "ShopState", "start_shop"]
