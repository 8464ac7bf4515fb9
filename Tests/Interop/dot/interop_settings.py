"""Django settings of the django-oauth-toolkit server the interoperability suite signs in against.

Everything lives in the folder named by INTEROP_FOLDER (its SQLite database, its RSA key); the server listens on
127.0.0.1 only. Written for the tests, not for production.
"""
import os

FOLDER = os.environ["INTEROP_FOLDER"]
BASE_URL = os.environ["INTEROP_BASE_URL"]

SECRET_KEY = "authdeck-interop-not-secret"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
ROOT_URLCONF = "interop_urls"
USE_TZ = True
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oauth2_provider",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [os.path.join(os.path.dirname(__file__), "templates")],
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
}]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.path.join(FOLDER, "dot.sqlite3")}}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast: a test server
LOGIN_URL = "/accounts/login/"
# Server errors go to standard error, which the test keeps in the server's folder.
LOGGING = {
    "version": 1,
    "handlers": {"stderr": {"class": "logging.StreamHandler"}},
    "loggers": {"django.request": {"handlers": ["stderr"], "level": "ERROR"}},
}

with open(os.path.join(FOLDER, "oidc.key")) as key_file:
    RSA_KEY = key_file.read()

OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": RSA_KEY,
    "PKCE_REQUIRED": True,
    "ROTATE_REFRESH_TOKEN": True,
    "SCOPES": {"openid": "OpenID Connect", "email": "Email", "profile": "Profile"},
    "OAUTH_DEVICE_VERIFICATION_URI": BASE_URL + "/o/device/",
    "OAUTH_DEVICE_VERIFICATION_URI_COMPLETE": BASE_URL + "/o/device/?user_code={user_code}",
    "DEVICE_FLOW_INTERVAL": 1,
    "OAUTH2_VALIDATOR_CLASS": "interop_validator.UserInfoValidator",
    # RP-Initiated Logout: end_session_endpoint in discovery; a signed-in user whose ID token names them is not asked
    # to confirm, and their tokens are deleted as the session ends (OIDC_RP_INITIATED_LOGOUT_DELETE_TOKENS).
    "OIDC_RP_INITIATED_LOGOUT_ENABLED": True,
    "OIDC_RP_INITIATED_LOGOUT_ALWAYS_PROMPT": False,
    # Access-token lifetime: the toolkit's default (ten hours) unless a test asks for short-lived tokens.
    "ACCESS_TOKEN_EXPIRE_SECONDS": int(os.environ.get("INTEROP_ACCESS_TOKEN_SECONDS", "36000")),
    # ID-token lifetime: the toolkit's default (ten hours) unless a test asks for short-lived ones.
    "ID_TOKEN_EXPIRE_SECONDS": int(os.environ.get("INTEROP_ID_TOKEN_SECONDS", "36000")),
}
