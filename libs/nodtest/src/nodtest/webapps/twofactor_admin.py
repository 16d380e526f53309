"""Fixture: the Django admin behind django-two-factor-auth, a sign-in in
two steps (username and password, then a TOTP code), with one staff account
whose password is the canary.

What the site itself records, read from its database: Django's
`auth_user.last_login` (set on each completed sign-in) and django-otp's
TOTP device, whose `last_t` is the last time step it accepted (a code is
accepted once) and whose `throttling_failure_count` counts wrong codes."""

import base64
import datetime
import pathlib
from dataclasses import dataclass

import pyotp
import pytest

from nodtest.claims import CANARY_PASSWORD
from nodtest.webapps.django_site import (
    RunningSite,
    cache_dir_of,
    cached_database,
    start_site,
)

SETTINGS = "twofactor_admin"
LOGIN_PATH = "/account/login/"
SIGNED_IN_PATH = "/admin/"


@dataclass(frozen=True)
class TwoFactorAccount:
    username: str
    password: str
    totp_seed: str  # base32, as an authenticator app (and nod's vault) keeps it

    def code(self, at: datetime.datetime | None = None) -> str:
        totp = pyotp.TOTP(self.totp_seed)
        return totp.at(at) if at else totp.now()


ACCOUNT = TwoFactorAccount("ada", CANARY_PASSWORD, "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP")


@dataclass
class TotpDeviceState:
    last_t: int  # the last 30 s step whose code was accepted; -1: none yet
    throttling_failure_count: int


class TwoFactorAdminSite:
    """The running site, its account, and what it recorded."""

    def __init__(self, site: RunningSite, account: TwoFactorAccount) -> None:
        self.server = site
        self.url = site.url
        self.login_url = site.url + LOGIN_PATH
        self.signed_in_url = site.url + SIGNED_IN_PATH
        self.account = account

    def last_login(self) -> str | None:
        rows = self.server.query(
            "SELECT last_login FROM auth_user WHERE username = ?", self.account.username
        )
        return rows[0][0]

    def totp_device(self) -> TotpDeviceState:
        ((last_t, failures),) = self.server.query(
            "SELECT d.last_t, d.throttling_failure_count FROM otp_totp_totpdevice d"
            " JOIN auth_user u ON u.id = d.user_id WHERE u.username = ?",
            self.account.username,
        )
        return TotpDeviceState(last_t, failures)

    def stop(self) -> None:
        self.server.stop()


# What the site's seed script makes: the account, its TOTP device.
SEED = {
    "username": ACCOUNT.username,
    "email": f"{ACCOUNT.username}@example.com",
    "password": ACCOUNT.password,
    "totp_key_hex": base64.b32decode(ACCOUNT.totp_seed).hex(),
}


async def twofactor_admin_database(
    cache: pathlib.Path | None, scratch: pathlib.Path
) -> pathlib.Path:
    """The migrated and seeded template database (kept in `cache`)."""
    return await cached_database(cache, SETTINGS, scratch, SEED)


async def start_twofactor_admin(
    template: pathlib.Path, directory: pathlib.Path
) -> TwoFactorAdminSite:
    """The site on a copy of `template`, its files in `directory`; stop() it."""
    site = await start_site(SETTINGS, template, directory, LOGIN_PATH)
    return TwoFactorAdminSite(site, ACCOUNT)


@pytest.fixture(scope="session", name="twofactor_admin_database")
async def twofactor_admin_database_fixture(pytestconfig, tmp_path_factory):
    return await twofactor_admin_database(
        cache_dir_of(pytestconfig), tmp_path_factory.mktemp("twofactor-admin-template")
    )


@pytest.fixture
async def twofactor_admin_site(twofactor_admin_database, tmp_path):
    site = await start_twofactor_admin(twofactor_admin_database, tmp_path)
    yield site
    site.stop()
