"""One SMTP conversation (blocking, run in a thread), and what its end means.

Anything that fails before MAIL FROM sent nothing of the message. After it,
a 5xx is the server's definite refusal (FAILED); a 4xx, a timeout or a
dropped connection leaves the message's fate open (UNCERTAIN).
"""

import json
import smtplib
import ssl
from email.message import EmailMessage
from email.utils import formatdate

from nod_approvals.connectors.base import Outcome, Send, app_message, uncertain
from nod_approvals.domain import ExecutionState


def build_message(request: Send, parameters: dict) -> EmailMessage:
    message = EmailMessage()
    message["From"] = request.settings["from"]
    message["To"] = ", ".join(parameters["to"])
    message["Subject"] = parameters["subject"]
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = f"<{request.execution_id}@nod-approvals>"
    message.set_content(parameters["body"])
    return message


def _text(answer: bytes | str) -> str:
    return answer.decode(errors="replace") if isinstance(answer, bytes) else answer


def _refusal(code: int, text: bytes | str, request: Send) -> Outcome:
    message = app_message(f"{code} {_text(text)}", request.credentials)
    if code >= 500:
        return Outcome(ExecutionState.FAILED, reason=f"the mail server refused it: {message}")
    return uncertain(f"the mail server answered {message}")


class PlainTextLogin(Exception):
    """The server offers no STARTTLS but the account has a password."""


def _open(request: Send, tls: ssl.SSLContext, timeout_s: float) -> smtplib.SMTP:
    smtp = smtplib.SMTP(request.settings["host"], int(request.settings["port"]), timeout=timeout_s)
    try:
        smtp.ehlo()
        secure = smtp.has_extn("starttls")
        if secure:
            smtp.starttls(context=tls)
            smtp.ehlo()
        if request.credentials:
            if not secure:
                raise PlainTextLogin
            smtp.login(request.credentials["username"], request.credentials["password"])
    except BaseException:
        smtp.close()
        raise
    return smtp


def _not_sent(why: str, request: Send) -> Outcome:
    reason = app_message(f"{why}; nothing was sent", request.credentials)
    return Outcome(ExecutionState.NOT_RUN, reason=reason)


def deliver(request: Send, tls: ssl.SSLContext, timeout_s: float) -> Outcome:
    parameters = json.loads(request.parameters_json)
    to = parameters["to"]
    try:
        smtp = _open(request, tls, timeout_s)
    except PlainTextLogin:
        return _not_sent(
            "the mail server offers no STARTTLS, so the password stays unsent", request
        )
    except smtplib.SMTPResponseException as error:
        why = f"the mail server said {error.smtp_code} {_text(error.smtp_error)}"
        return _not_sent(why, request)
    except (smtplib.SMTPException, OSError) as error:
        return _not_sent(f"could not open a mail session ({type(error).__name__})", request)
    try:
        message = build_message(request, parameters)
        refused = smtp.send_message(message, from_addr=request.settings["from"], to_addrs=to)
    except smtplib.SMTPRecipientsRefused as error:
        # Every recipient was refused; one transient (4xx) refusal leaves it undecided.
        code, text = max(error.recipients.values(), key=lambda answer: answer[0] < 500)
        return _refusal(code, text, request)
    except smtplib.SMTPResponseException as error:
        return _refusal(error.smtp_code, error.smtp_error, request)
    except (smtplib.SMTPException, OSError) as error:
        return uncertain(f"the mail session broke while sending ({type(error).__name__})")
    finally:
        _quit_quietly(smtp)
    result = "accepted for " + ", ".join(a for a in to if a not in refused)
    if refused:
        result += "; refused: " + ", ".join(f"{a} ({code})" for a, (code, _) in refused.items())
    return Outcome(ExecutionState.DONE, result=app_message(result, request.credentials))


def _quit_quietly(smtp: smtplib.SMTP) -> None:
    """The message's fate is already known; a failed goodbye changes nothing."""
    try:
        smtp.quit()
    except (smtplib.SMTPException, OSError):
        smtp.close()
