from django.contrib.auth import views as auth_views
from django.urls import include, path
from oauth2_provider import urls as oauth2_urls

urlpatterns = [
    path("accounts/login/", auth_views.LoginView.as_view()),
    path("o/", include(oauth2_urls)),
    # RFC 8414 metadata at the origin, as the toolkit's docs ask for an issuer with a path.
    path("", include((oauth2_urls.metadata_urlpatterns, "oauth2_metadata"))),
]
