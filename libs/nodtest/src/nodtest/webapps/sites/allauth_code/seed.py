"""Creates the account and its verified email address. The account
arrives as JSON on stdin, so its password is never in a command line."""

import json
import sys

import django


def main() -> None:
    django.setup()
    from allauth.account.models import EmailAddress
    from django.contrib.auth import get_user_model

    account = json.load(sys.stdin)
    user = get_user_model().objects.create_user(
        account["username"], account["email"], account["password"]
    )
    EmailAddress.objects.create(user=user, email=account["email"], verified=True, primary=True)


if __name__ == "__main__":
    main()
