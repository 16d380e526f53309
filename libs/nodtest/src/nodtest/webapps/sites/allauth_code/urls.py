"""allauth's account URLs under /accounts/, and the site's root sending a
visitor to sign in."""

from django.urls import include, path
from django.views.generic import RedirectView

urlpatterns = [
    path("accounts/", include("allauth.urls")),
    path("", RedirectView.as_view(url="/accounts/login/")),
]
