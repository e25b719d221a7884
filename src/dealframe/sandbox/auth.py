"""Bearer-token checks per interface family (docs/sandbox.md, "Authentication")."""

from __future__ import annotations

import hmac

from .errors import ApiProblem

__all__ = ["DEFAULT_PRIVATE_KEY", "DEFAULT_PUBLIC_TOKEN", "check_authorization", "family_of"]

DEFAULT_PUBLIC_TOKEN = "sandbox-public-token"
DEFAULT_PRIVATE_KEY = "sandbox-private-key"

PUBLIC_PREFIXES = ("/api/v1/", "/api/v2/")
PRIVATE_PREFIX = "/api/private/v1/"
ADMIN_PREFIX = "/admin/v1/"


def family_of(path: str) -> str | None:
    """``"private"``, ``"public"``, ``"admin"`` or None (no token needed) for a request path.

    Examples
    --------
    >>> family_of("/api/private/v1/companies"), family_of("/api/v2/companies"), family_of("/health")
    ('private', 'public', None)
    """
    if path.startswith(PRIVATE_PREFIX):
        return "private"
    if path.startswith(PUBLIC_PREFIXES):
        return "public"
    if path.startswith(ADMIN_PREFIX):
        return "admin"
    return None


def check_authorization(header: str | None, expected: str) -> None:
    """Raise the documented 401 unless ``header`` is ``Bearer <expected>``."""
    if header is None or not header.strip():
        raise ApiProblem(401, "MISSING_TOKEN", "Authorization header is required")
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiProblem(401, "INVALID_TOKEN", "Invalid or expired token")
    if not hmac.compare_digest(token.strip().encode(), expected.encode()):
        raise ApiProblem(401, "INVALID_TOKEN", "Invalid or expired token")
