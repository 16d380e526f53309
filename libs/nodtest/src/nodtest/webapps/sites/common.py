"""Settings every Django site here shares. The fixture gives the database
file, the secret key and the mail server through the environment.

DEBUG stays off: Django's debug page would show posted values (a password,
a card number) back. Static files are served by `runserver --insecure`, so
the pages look as they would deployed, and no page loads anything from
outside the machine."""

import os

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ["NODTEST_SITE_DB"],
        "OPTIONS": {"timeout": 20},
    }
}
SECRET_KEY = os.environ["NODTEST_SITE_SECRET_KEY"]
DEBUG = False
# Where the browser reaches the site (nodtest.addresses): never 127.0.0.1.
ALLOWED_HOSTS = ["127.0.0.2", "127.0.0.3"]
USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en"
STATIC_URL = "/static/"
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
SESSION_ENGINE = "django.contrib.sessions.backends.db"

DJANGO_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
]

MIDDLEWARE_BEFORE_AUTH = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
MIDDLEWARE_AFTER_AUTH = [
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

CONTEXT_PROCESSORS = [
    "django.template.context_processors.request",
    "django.contrib.auth.context_processors.auth",
    "django.contrib.messages.context_processors.messages",
]

# Django's own request log (time, method, path, status; never a form's
# values) goes to stderr, which the fixture keeps in a file.


def site_logging(loggers: dict[str, dict] | None = None) -> dict:
    """Django's logging plus, on stderr, a server error's traceback (with
    DEBUG off Django only mails it, so a site that breaks says why in the
    fixture's log; a traceback names code, not the values a form posted)
    and any `loggers` a site adds."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "plain"}},
        "formatters": {"plain": {"format": "[%(name)s] %(levelname)s %(message)s"}},
        "loggers": {
            "django.request": {"handlers": ["stderr"], "level": "ERROR"},
            **(loggers or {}),
        },
    }


LOGGING = site_logging()
