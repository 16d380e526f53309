"""django-allauth's sign-in by emailed code: an email address on one page,
the code it mails on the next."""
