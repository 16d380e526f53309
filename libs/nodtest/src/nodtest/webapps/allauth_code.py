"""Fixture: django-allauth's sign-in by emailed code, with one account
(its email address verified, its password the canary). The email address
goes on one page, the code the site mails on the next; the mail goes to a
local SMTP server (nodtest.mail's stand-in) that keeps every message.

What the site itself records: `auth_user.last_login`, and the messages it
sent, as the mail server received them. allauth keeps a pending code in
the visitor's session only, so wrong codes leave no row: the page and
last_login are what show them."""

import pathlib
import re
from dataclasses import dataclass

import pytest

from nodtest.claims import CANARY_PASSWORD
from nodtest.mail import SmtpStandIn, smtp_controller
from nodtest.webapps.django_site import (
    RunningSite,
    cache_dir_of,
    cached_database,
    start_site,
)

SETTINGS = "allauth_code"
LOGIN_PATH = "/accounts/login/"
REQUEST_CODE_PATH = "/accounts/login/code/"
SIGNED_IN_PATH = "/accounts/email/"
# allauth's default code: eight letters of an unambiguous alphabet, dashed.
CODE_LINE = re.compile(r"^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$")


@dataclass(frozen=True)
class CodeAccount:
    email: str
    password: str


ACCOUNT = CodeAccount("lin@example.com", CANARY_PASSWORD)


class AllauthCodeSite:
    """The running site, its account, its mailbox, and what it recorded."""

    def __init__(self, site: RunningSite, mailbox: SmtpStandIn, smtp) -> None:
        self.server = site
        self.url = site.url
        self.login_url = site.url + LOGIN_PATH
        self.request_code_url = site.url + REQUEST_CODE_PATH
        self.signed_in_url = site.url + SIGNED_IN_PATH
        self.account = ACCOUNT
        self.mailbox = mailbox
        self._smtp = smtp

    def codes_sent(self) -> list[str]:
        """The sign-in codes the site mailed to the account, oldest first.
        Private values: a test types them, nothing prints them."""
        return [
            line.strip()
            for message in self.mailbox.messages
            if self.account.email in message["to"] and "Sign-In Code" in message["subject"]
            for line in message["body"].splitlines()
            if CODE_LINE.match(line.strip())
        ]

    def last_login(self) -> str | None:
        return self.server.query(
            "SELECT last_login FROM auth_user WHERE email = ?", self.account.email
        )[0][0]

    def stop(self) -> None:
        try:
            self.server.stop()
        finally:
            self._smtp.stop()


# What the site's seed script makes: the account, its address verified.
SEED = {"username": "lin", "email": ACCOUNT.email, "password": ACCOUNT.password}


async def allauth_code_database(cache: pathlib.Path | None, scratch: pathlib.Path) -> pathlib.Path:
    """The migrated and seeded template database (kept in `cache`)."""
    return await cached_database(cache, SETTINGS, scratch, SEED)


async def start_allauth_code(
    template: pathlib.Path, directory: pathlib.Path, **extra_env: str
) -> AllauthCodeSite:
    """The site on a copy of `template` and its mail server, its files in
    `directory`; stop() stops both."""
    mailbox = SmtpStandIn()
    smtp = smtp_controller(mailbox)
    try:
        site = await start_site(
            SETTINGS,
            template,
            directory,
            LOGIN_PATH,
            NODTEST_SITE_SMTP_PORT=str(smtp.port),
            **extra_env,
        )
    except BaseException:
        smtp.stop()
        raise
    return AllauthCodeSite(site, mailbox, smtp)


@pytest.fixture(scope="session", name="allauth_code_database")
async def allauth_code_database_fixture(pytestconfig, tmp_path_factory):
    return await allauth_code_database(
        cache_dir_of(pytestconfig), tmp_path_factory.mktemp("allauth-code-template")
    )


@pytest.fixture
async def allauth_code_site(allauth_code_database, tmp_path):
    site = await start_allauth_code(allauth_code_database, tmp_path)
    yield site
    site.stop()
