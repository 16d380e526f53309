"""Creates the staff account and its TOTP device (run once per test session,
in its own process, before the server starts). The account arrives as JSON
on stdin, so its password is never in a command line."""

import json
import sys

import django


def main() -> None:
    django.setup()
    from django.contrib.auth import get_user_model
    from django_otp.plugins.otp_totp.models import TOTPDevice

    account = json.load(sys.stdin)
    user = get_user_model().objects.create_superuser(
        account["username"], account["email"], account["password"]
    )
    TOTPDevice.objects.create(
        user=user, name="default", key=account["totp_key_hex"], confirmed=True
    )


if __name__ == "__main__":
    main()
