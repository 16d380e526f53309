"""What the shop knows: accounts, signed-in visitors, orders, and a tally of
every submission it received. The tally keeps lengths and hashes of the
submitted values, never the values, so a test can check what arrived without
the shop ever showing a password or card number back."""

import asyncio
import hashlib
import secrets
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime

from aiohttp import web

FORMS = ("login", "otp", "checkout")
MODES = ("ok", "hold", "drop", "slow", "echo")


@dataclass(frozen=True)
class Account:
    username: str
    password: str
    totp_seed: str | None = None


@dataclass(frozen=True)
class Order:
    username: str
    total: str
    placed_at: datetime


@dataclass
class FormMode:
    mode: str = "ok"
    # hold: give up holding after this long (None: until released); slow: the delay.
    seconds: float | None = None


def fingerprint(value: str) -> dict[str, object]:
    return {"length": len(value), "sha256": hashlib.sha256(value.encode()).hexdigest()}


@dataclass
class ShopState:
    accounts: dict[str, Account] = field(default_factory=dict)
    # cookie token -> username, for visitors who are signed in
    signed_in: dict[str, str] = field(default_factory=dict)
    # cookie token -> username, for visitors who still owe a one-time code
    awaiting_code: dict[str, str] = field(default_factory=dict)
    # username -> the last TOTP time step whose code it accepted
    last_code_step: dict[str, int] = field(default_factory=dict)
    orders: dict[str, Order] = field(default_factory=dict)
    counts: Counter = field(default_factory=Counter)
    last: dict[str, dict[str, dict]] = field(default_factory=dict)
    modes: dict[str, FormMode] = field(default_factory=lambda: {f: FormMode() for f in FORMS})
    releases: dict[str, asyncio.Event] = field(default_factory=dict)

    def add_account(self, account: Account) -> None:
        self.accounts[account.username] = account

    def set_mode(self, form: str, mode: str, seconds: float | None = None) -> None:
        if form not in FORMS or mode not in MODES:
            raise ValueError(f"form must be one of {FORMS} and mode one of {MODES}")
        self.modes[form] = FormMode(mode, seconds)

    def release_event(self, form: str) -> asyncio.Event:
        return self.releases.setdefault(form, asyncio.Event())

    def release(self, form: str | None = None) -> None:
        """Lets every held submission (of one form, or all) answer."""
        for name in [form] if form else FORMS:
            self.releases.pop(name, asyncio.Event()).set()

    def record(self, form: str, fields: dict[str, str]) -> None:
        self.counts[form] += 1
        self.last[form] = {name: fingerprint(value) for name, value in fields.items()}

    def snapshot(self) -> dict:
        return {
            "counts": {form: self.counts[form] for form in FORMS},
            "last": self.last,
            "modes": {form: mode.mode for form, mode in self.modes.items()},
        }

    def new_visitor_token(self) -> str:
        return secrets.token_urlsafe(18)

    def new_order(self, username: str, total: str) -> str:
        reference = f"ORD-{secrets.token_hex(4).upper()}"
        self.orders[reference] = Order(username, total, datetime.now(UTC))
        return reference

    def orders_of(self, username: str) -> list[tuple[str, Order]]:
        """A signed-in visitor's orders, newest first."""
        mine = [(ref, order) for ref, order in self.orders.items() if order.username == username]
        return sorted(mine, key=lambda pair: pair[1].placed_at, reverse=True)


STATE = web.AppKey("state", ShopState)
