"""django-oscar as its "Building your own shop" guide sets it up, with
Haystack's simple search backend, no thumbnail library (thumbnails.py) and
the checkout app forked for its card step (checkout/)."""

import os
import pathlib

from oscar import INSTALLED_APPS as OSCAR_APPS
from oscar.defaults import *  # noqa: F403

from nodtest.webapps.sites.common import *  # noqa: F403
from nodtest.webapps.sites.common import (
    CONTEXT_PROCESSORS,
    MIDDLEWARE_AFTER_AUTH,
    MIDDLEWARE_BEFORE_AUTH,
    site_logging,
)

HERE = pathlib.Path(__file__).parent

INSTALLED_APPS = [
    "nodtest.webapps.sites.oscar_shop.checkout.apps.CheckoutConfig"
    if app == "oscar.apps.checkout.apps.CheckoutConfig"
    else app
    for app in OSCAR_APPS
    # sorl-thumbnail is an optional extra of Oscar's; see thumbnails.py.
    if app != "sorl.thumbnail"
]
SITE_ID = 1
MIDDLEWARE = [
    *MIDDLEWARE_BEFORE_AUTH,
    *MIDDLEWARE_AFTER_AUTH,
    "oscar.apps.basket.middleware.BasketMiddleware",
    "django.contrib.flatpages.middleware.FlatpageFallbackMiddleware",
]
ROOT_URLCONF = "nodtest.webapps.sites.oscar_shop.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [HERE / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                *CONTEXT_PROCESSORS,
                "django.template.context_processors.i18n",
                "oscar.apps.search.context_processors.search_form",
                "oscar.apps.checkout.context_processors.checkout",
                "oscar.apps.communication.notifications.context_processors.notifications",
                "oscar.core.context_processors.metadata",
            ]
        },
    }
]
AUTHENTICATION_BACKENDS = [
    "oscar.apps.customer.auth_backends.EmailBackend",
    "django.contrib.auth.backends.ModelBackend",
]
HAYSTACK_CONNECTIONS = {"default": {"ENGINE": "haystack.backends.simple_backend.SimpleEngine"}}
MEDIA_ROOT = os.environ["NODTEST_SITE_MEDIA"]
MEDIA_URL = "/media/"
OSCAR_THUMBNAILER = "nodtest.webapps.sites.oscar_shop.thumbnails.OriginalImage"
OSCAR_SHOP_NAME = "Oscar test shop"
OSCAR_DEFAULT_CURRENCY = "GBP"
OSCAR_SEND_REGISTRATION_EMAIL = False
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
OSCAR_INITIAL_ORDER_STATUS = "Pending"
OSCAR_INITIAL_LINE_STATUS = "Pending"
OSCAR_ORDER_STATUS_PIPELINE = {"Pending": ("Cancelled",), "Cancelled": ()}

# Oscar's checkout narrates each order (its number, payment taken or refused
# and why; never a card's digits): the shop's own record of payment attempts.
LOGGING = site_logging(
    {"oscar.checkout": {"handlers": ["stderr"], "level": "INFO", "propagate": False}}
)
