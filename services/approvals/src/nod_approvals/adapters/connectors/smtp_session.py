"""One SMTP conversation (aiosmtplib) within one budget, and what its end means.

Anything that ends before MAIL FROM sent nothing of the message (NOT_RUN).
After it, a 5xx is the server's definite refusal (FAILED); a 4xx, a timeout
or a dropped connection leaves the message's fate open (UNCERTAIN). The
password is only ever sent after STARTTLS. The connection goes to one of the
addresses just checked, never to a fresh lookup of the name.
"""

import asyncio
import json
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate

import aiosmtplib

from nod_approvals.adapters.connectors.addresses import AddressGuard, Refused, Unresolved
from nod_approvals.adapters.connectors.base import Send, app_message
from nod_approvals.domain.approvals import ExecutionState, Outcome, not_run, uncertain
from nodkit.networks import Address

# After the message's fate is known, how long a goodbye may take.
QUIT_TIMEOUT_S = 2.0


def build_message(request: Send, parameters: dict) -> EmailMessage:
    message = EmailMessage()
    message["From"] = request.settings["from"]
    message["To"] = ", ".join(parameters["to"])
    message["Subject"] = parameters["subject"]
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = f"<{request.execution_id}@nod-approvals>"
    message.set_content(parameters["body"])
    return message


@dataclass
class _Progress:
    # From MAIL FROM on, the server may have the message.
    mail_started: bool = False


class PlainTextLogin(Exception):
    """The server offers no STARTTLS but the account has a password."""


@dataclass(frozen=True)
class Delivery:
    tls: ssl.SSLContext
    budget_s: float
    guard: AddressGuard

    async def deliver(self, request: Send, host: str, port: int) -> Outcome:
        progress = _Progress()
        smtp = aiosmtplib.SMTP(
            port=port,
            timeout=self.budget_s,
            start_tls=False,  # decided below, so the password never goes out in clear
            tls_context=self.tls,
        )
        outcome = None
        try:
            async with asyncio.timeout(self.budget_s):
                outcome = await self._converse(smtp, request, host, port, progress)
        except TimeoutError:
            why = f"the mail server gave no answer within {self.budget_s:g} s"
            if progress.mail_started:
                return uncertain(why)
            return _not_sent(why, request)
        finally:
            if outcome is None:
                smtp.close()
        await _quit_quietly(smtp)
        return outcome

    async def _converse(
        self, smtp: aiosmtplib.SMTP, request: Send, host: str, port: int, progress: _Progress
    ) -> Outcome:
        parameters = json.loads(request.parameters_json)
        try:
            await self._open(smtp, request, host, port)
        except Refused as refused:
            return _not_sent(f"the mail server's address is not allowed ({refused})", request)
        except Unresolved:
            return _not_sent(f"could not look up the mail server {host}", request)
        except PlainTextLogin:
            return _not_sent(
                "the mail server offers no STARTTLS, so the password stays unsent", request
            )
        except aiosmtplib.SMTPResponseException as error:
            return _not_sent(f"the mail server said {error.code} {error.message}", request)
        except (aiosmtplib.SMTPException, OSError) as error:
            return _not_sent(f"could not open a mail session ({type(error).__name__})", request)
        progress.mail_started = True
        return await _send(smtp, request, parameters)

    async def _open(self, smtp: aiosmtplib.SMTP, request: Send, host: str, port: int) -> None:
        await _connect_to_one(smtp, await self.guard.resolve(host, port))
        await smtp.ehlo()
        secure = smtp.supports_extension("starttls")
        if secure:
            # The certificate must name the host of the settings, not the address.
            await smtp.starttls(server_hostname=host)
            await smtp.ehlo()
        if request.credentials:
            if not secure:
                raise PlainTextLogin
            await smtp.login(request.credentials["username"], request.credentials["password"])


async def _connect_to_one(smtp: aiosmtplib.SMTP, addresses: list[Address]) -> None:
    """Connects to the first of the checked addresses that answers."""
    *others, last = addresses
    for address in others:
        try:
            await smtp.connect(hostname=str(address))
            return
        except aiosmtplib.SMTPConnectError:
            continue  # nothing reached this address: the next may answer
    await smtp.connect(hostname=str(last))


async def _send(smtp: aiosmtplib.SMTP, request: Send, parameters: dict) -> Outcome:
    """From MAIL FROM on."""
    to = parameters["to"]
    try:
        refused, _ = await smtp.send_message(
            build_message(request, parameters), sender=request.settings["from"], recipients=to
        )
    except aiosmtplib.SMTPRecipientsRefused as error:
        # Every recipient was refused; one transient (4xx) refusal leaves it undecided.
        worst = max(error.recipients, key=lambda refusal: refusal.code < 500)
        return _refusal(worst.code, worst.message, request)
    except aiosmtplib.SMTPResponseException as error:
        return _refusal(error.code, error.message, request)
    except (aiosmtplib.SMTPException, OSError) as error:
        return uncertain(f"the mail session broke while sending ({type(error).__name__})")
    result = "accepted for " + ", ".join(a for a in to if a not in refused)
    if refused:
        result += "; refused: " + ", ".join(f"{a} ({r.code})" for a, r in refused.items())
    return Outcome(ExecutionState.DONE, result=app_message(result, request.credentials))


def _refusal(code: int, text: str, request: Send) -> Outcome:
    message = app_message(f"{code} {text}", request.credentials)
    if code >= 500:
        return Outcome(ExecutionState.FAILED, reason=f"the mail server refused it: {message}")
    return uncertain(f"the mail server answered {message}")


def _not_sent(why: str, request: Send) -> Outcome:
    return not_run(app_message(why, request.credentials))


async def _quit_quietly(smtp: aiosmtplib.SMTP) -> None:
    """The message's fate is already known; a failed goodbye changes nothing."""
    try:
        await smtp.quit(timeout=QUIT_TIMEOUT_S)
    except (aiosmtplib.SMTPException, OSError):
        pass
    finally:
        smtp.close()
