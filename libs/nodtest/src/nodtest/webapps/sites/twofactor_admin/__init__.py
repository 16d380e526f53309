"""The Django admin behind django-two-factor-auth: a password page, then a
TOTP code page (django-otp), then the admin's index."""
