"""Django's admin, signed in through django-two-factor-auth's login wizard
(its documented set-up: the OTP middleware, AdminSiteOTPRequired)."""

import pathlib

from nodtest.webapps.sites.common import *  # noqa: F403
from nodtest.webapps.sites.common import (
    CONTEXT_PROCESSORS,
    DJANGO_APPS,
    MIDDLEWARE_AFTER_AUTH,
    MIDDLEWARE_BEFORE_AUTH,
)

INSTALLED_APPS = [
    *DJANGO_APPS,
    "django_otp",
    "django_otp.plugins.otp_static",
    "django_otp.plugins.otp_totp",
    "two_factor",
]
MIDDLEWARE = [
    *MIDDLEWARE_BEFORE_AUTH,
    "django_otp.middleware.OTPMiddleware",
    *MIDDLEWARE_AFTER_AUTH,
]
ROOT_URLCONF = "nodtest.webapps.sites.twofactor_admin.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # two_factor/_base.html of our own: the package's loads Bootstrap
        # from a CDN, which a machine with no internet never reaches.
        "DIRS": [pathlib.Path(__file__).parent / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {"context_processors": CONTEXT_PROCESSORS},
    }
]
LOGIN_URL = "two_factor:login"
LOGIN_REDIRECT_URL = "/admin/"
# django-otp's default tolerance, written down because the tests rely on it:
# a code is good for its 30 s step and one step either side, once. After a
# wrong code, verification is refused for THROTTLE_FACTOR seconds (doubling
# with each further failure): 5 rather than the default 1, so that a loaded
# machine still sends the next code inside the refusal the tests look for.
OTP_TOTP_TOLERANCE = 1
OTP_TOTP_THROTTLE_FACTOR = 5
