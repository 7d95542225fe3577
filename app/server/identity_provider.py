"""Identity from the team's identity provider: signed JWTs checked against its published keys.

A token is accepted when its signature verifies with one of the provider's signing keys,
it names the configured issuer and audience, and it has not expired (allowing
`jwt_leeway_s` of clock skew). The keys come from the provider's JWKS (its `jwks_url`, or
the `jwks_uri` its OIDC discovery document names), are kept for `jwks_cache_s`, and are
fetched again at once for a key id not among them (a rotated key), at most
`REFETCHES_PER_MINUTE` times a minute (tokens with made-up key ids cannot flood the
provider). Only asymmetric algorithms are accepted: a shared secret or `none` never
verifies anything.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Any

import httpx
import jwt

from core.server_access import ServerSection

logger = logging.getLogger(__name__)

ALGORITHMS = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)
REFETCHES_PER_MINUTE = 6
"""Fetches of the keys a minute for key ids the provider did not list (a rotation needs one)."""
FETCH_TIMEOUT_S = 5.0
DISCOVERY = "/.well-known/openid-configuration"


class TokenRejected(Exception):
    """A JWT the server does not accept; the message is the one line its caller is told."""


def looks_like_jwt(token: str) -> bool:
    """Whether `token` has a JWT's form (header.payload.signature, the header readable)."""
    if token.count(".") != 2:
        return False
    try:
        jwt.get_unverified_header(token)
    except jwt.DecodeError:
        return False
    return True


async def verified_claims(server: ServerSection, token: str) -> dict[str, Any]:
    """Return the claims of a JWT the provider signed for this server.

    Raises:
        TokenRejected: expired, not yet valid, for another audience or issuer, signed with
            a key the provider does not publish, or not verifiable.
    """
    assert server.jwt_issuer and server.jwt_audience, "JWTs need an issuer and an audience"
    header = jwt.get_unverified_header(token)
    algorithm = str(header.get("alg", ""))
    if algorithm not in ALGORITHMS:
        raise TokenRejected(f"The token's algorithm {algorithm!r} is not accepted.")
    keys = _provider(server)
    key = await keys.key(str(header.get("kid") or ""), algorithm)
    try:
        return jwt.decode(
            token,
            key,
            algorithms=[algorithm],
            audience=server.jwt_audience,
            issuer=server.jwt_issuer,
            leeway=server.jwt_leeway_s,
            options={"require": ["exp", "iss", "aud"]},
        )
    except jwt.ExpiredSignatureError:
        raise TokenRejected("The token has expired: sign in again.") from None
    except jwt.ImmatureSignatureError:
        raise TokenRejected("The token is not valid yet (check the clocks).") from None
    except jwt.InvalidAudienceError:
        raise TokenRejected(f"The token is not for this server ({server.jwt_audience}).") from None
    except jwt.InvalidIssuerError:
        raise TokenRejected(f"The token was not issued by {server.jwt_issuer}.") from None
    except jwt.InvalidSignatureError:
        raise TokenRejected("The token's signature does not verify.") from None
    except jwt.MissingRequiredClaimError as exc:
        raise TokenRejected(f"The token has no {exc.claim!r} claim.") from None
    except jwt.InvalidTokenError as exc:
        raise TokenRejected(f"The token is not valid: {exc}.") from None


class ProviderKeys:
    """The provider's signing keys (JWKs by key id), fetched on demand and kept a while."""

    def __init__(self, server: ServerSection) -> None:
        self._issuer = str(server.jwt_issuer).rstrip("/")
        self._jwks_url = server.jwks_url
        self._keep_s = server.jwks_cache_s
        self._keys: dict[str, dict[str, Any]] = {}
        self._fetched_at: float | None = None
        self._refetches: deque[float] = deque(maxlen=REFETCHES_PER_MINUTE)
        self._lock = asyncio.Lock()
        self.fetches = 0
        """How many times the keys were fetched (the cache is what keeps this low)."""

    async def key(self, kid: str, algorithm: str) -> jwt.PyJWK:
        """Return the provider's key `kid` for `algorithm` (no kid: its only key)."""
        async with self._lock:
            if self._stale():
                await self._fetch()
            elif kid and kid not in self._keys and self._may_refetch():
                self._refetches.append(time.monotonic())
                await self._fetch()
        if not kid and len(self._keys) == 1:
            [jwk] = self._keys.values()
        elif kid in self._keys:
            jwk = self._keys[kid]
        else:
            raise TokenRejected("The token's key is not one the identity provider lists.")
        try:
            return jwt.PyJWK(jwk, algorithm=algorithm)
        except jwt.PyJWKError as exc:
            raise TokenRejected(f"The token's key does not fit its algorithm ({exc}).") from None

    def _stale(self) -> bool:
        return self._fetched_at is None or time.monotonic() - self._fetched_at > self._keep_s

    def _may_refetch(self) -> bool:
        full = len(self._refetches) == REFETCHES_PER_MINUTE
        return not full or time.monotonic() - self._refetches[0] > 60.0

    async def _fetch(self) -> None:
        try:
            async with httpx.AsyncClient(timeout=FETCH_TIMEOUT_S) as client:
                url = self._jwks_url or await self._discovered(client)
                response = await client.get(url)
                response.raise_for_status()
                listed = response.json().get("keys", [])
        except (httpx.HTTPError, ValueError, KeyError, AttributeError) as exc:
            logger.exception("could not fetch the identity provider's keys")
            raise TokenRejected(
                f"The token cannot be checked now: the identity provider's keys could not "
                f"be fetched ({type(exc).__name__})."
            ) from None
        self.fetches += 1
        self._fetched_at = time.monotonic()
        # Encryption keys are published alongside; only signing keys verify a token.
        self._keys = {
            str(key.get("kid", "")): key
            for key in listed
            if isinstance(key, dict) and key.get("use", "sig") == "sig"
        }

    async def _discovered(self, client: httpx.AsyncClient) -> str:
        response = await client.get(self._issuer + DISCOVERY)
        response.raise_for_status()
        return str(response.json()["jwks_uri"])


_providers: dict[tuple[str, str | None, float], ProviderKeys] = {}


def _provider(server: ServerSection) -> ProviderKeys:
    """The process's keys for this provider (one cache per issuer and key URL)."""
    key = (str(server.jwt_issuer), server.jwks_url, server.jwks_cache_s)
    if key not in _providers:
        _providers[key] = ProviderKeys(server)
    return _providers[key]
