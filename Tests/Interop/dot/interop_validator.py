"""The toolkit's own validator, with email and name offered at UserInfo only (OIDC Core 5.4), as a site that keeps
its ID tokens small does."""
from oauth2_provider.oauth2_validators import OAuth2Validator


class UserInfoValidator(OAuth2Validator):
    def get_userinfo_claims(self, request):
        claims = super().get_userinfo_claims(request)
        user = request.user
        claims["email"] = user.email
        claims["name"] = user.get_full_name()
        return claims
