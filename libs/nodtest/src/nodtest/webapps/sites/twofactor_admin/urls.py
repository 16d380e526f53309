"""The two-factor login wizard at /account/login/ and the admin at /admin/,
which sends anyone not verified by a second factor to the wizard."""

from django.contrib import admin
from django.contrib.auth.views import LogoutView
from django.urls import include, path
from two_factor.admin import AdminSiteOTPRequired
from two_factor.urls import urlpatterns as two_factor_urls

admin.site.__class__ = AdminSiteOTPRequired

urlpatterns = [
    path("", include(two_factor_urls)),
    path("account/logout/", LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
]
