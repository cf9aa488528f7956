"""Owner `authentication`: what the apiserver refuses of the requests of authentication.k8s.io/v1.
pkg/apis/authentication/validation (v1.31; schemas/ledger/authentication-tokenrequest.json)
validates a TokenRequest alone, the request of a ServiceAccount's token subresource (`kubectl create
token` builds one); a TokenReview's REST create (pkg/registry/authentication/tokenreview/storage.go)
refuses one without a token; a SelfSubjectReview's checks nothing."""

from __future__ import annotations

from generator.core.findings import Finding
from generator.validate.rules.base import as_int, error

TOKEN_REVIEW_RULE = "token-review"


def token_review_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """The TokenReview REST create: "token is required for TokenReview in authentication" (a
    BadRequest, before any authenticator runs)."""
    spec = obj.get("spec")
    if isinstance(spec, dict) and spec.get("token") == "":  # absent: the schema's required
        return [error("spec.token", TOKEN_REVIEW_RULE, "spec.token is required: a TokenReview reviews a token")]
    return []


TOKEN_REQUEST_RULE = "token-request"

# ValidateTokenRequest (pkg/apis/authentication/validation): at least 10 minutes, at most 2^32 s
TOKEN_MIN_SECONDS = 10 * 60
TOKEN_MAX_SECONDS = 1 << 32


def token_request_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateTokenRequest, as the serviceaccounts/token create runs it: spec.expirationSeconds
    from 600 to 2^32 (an absent one is defaulted to 3600, SetDefaults_TokenRequestSpec)."""
    spec = obj.get("spec")
    seconds = as_int(spec.get("expirationSeconds")) if isinstance(spec, dict) else None
    if seconds is not None and seconds < TOKEN_MIN_SECONDS:
        message = f"spec.expirationSeconds {seconds} may not specify a duration less than 10 minutes (600)"
        return [error("spec.expirationSeconds", TOKEN_REQUEST_RULE, message)]
    if seconds is not None and seconds > TOKEN_MAX_SECONDS:
        message = f"spec.expirationSeconds {seconds} may not specify a duration larger than 2^32 seconds"
        return [error("spec.expirationSeconds", TOKEN_REQUEST_RULE, message)]
    return []
