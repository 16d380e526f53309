"""django-allauth's account app as its quickstart sets it up, signing in by
email address, with "login by code" on: the site mails a one-time code
through the SMTP server the fixture runs."""

import os

from nodtest.webapps.sites.common import *  # noqa: F403
from nodtest.webapps.sites.common import (
    CONTEXT_PROCESSORS,
    DJANGO_APPS,
    MIDDLEWARE_AFTER_AUTH,
    MIDDLEWARE_BEFORE_AUTH,
)

INSTALLED_APPS = [*DJANGO_APPS, "allauth", "allauth.account"]
MIDDLEWARE = [
    *MIDDLEWARE_BEFORE_AUTH,
    *MIDDLEWARE_AFTER_AUTH,
    "allauth.account.middleware.AccountMiddleware",
]
ROOT_URLCONF = "nodtest.webapps.sites.allauth_code.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {"context_processors": CONTEXT_PROCESSORS},
    }
]
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_LOGIN_BY_CODE_ENABLED = True
# allauth's defaults, written down because the tests rely on them: three
# wrong codes and the code is spent.
ACCOUNT_LOGIN_BY_CODE_MAX_ATTEMPTS = 3
LOGIN_REDIRECT_URL = "/accounts/email/"
# allauth's rate limits (a code requested at most 3 times a minute per
# address, 20 per IP) stay on for the tests; a benchmark that signs in by
# code dozens of times a minute turns them off (bench/app_entry_bench.py).
if os.environ.get("NODTEST_SITE_RATE_LIMITS") == "off":
    ACCOUNT_RATE_LIMITS = False

EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
EMAIL_HOST = "127.0.0.1"
EMAIL_PORT = int(os.environ.get("NODTEST_SITE_SMTP_PORT", "25"))
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = "accounts@allauth-site.test"
