"""Who calls the LangGraph Server: a token `AGENTLOOP_SERVER_TOKENS` names, or a signed JWT.

A caller's token comes as `Authorization: Bearer <token>` or as `x-api-key` (what the SDK
and `RemoteGraph` send). A static token's caller is its user id, with the role the
workspace lists for them (`viewer` when it lists nobody); a JWT from the team's identity
provider (`AGENTLOOP_SERVER_JWT_*`) names a person by one claim, and only a person the
workspace lists gets in, with their listed role. Without tokens or a provider,
`langgraph dev` serves its loopback callers without authentication, and says so: nobody is
identified, and a run's context names who it is for; any other server refuses every request.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
from collections.abc import Mapping
from typing import Any

from langgraph_sdk import Auth

from app.server import identity_provider
from app.server.members import member
from core.db.people import role_of
from core.server_access import RELAY, ROLE_PERMISSIONS, UNAUTHENTICATED, UNLISTED_ROLE
from core.settings import Settings
from graph.served import served_database

logger = logging.getLogger(__name__)

DEV_SERVER = "local_dev"
"""What `langgraph dev` sets LANGSMITH_LANGGRAPH_API_VARIANT to (a built server does not)."""
UNAUTHENTICATED_USER = "unauthenticated"

NO_TOKENS = (
    "This server has no callers set up: set AGENTLOOP_SERVER_TOKENS (a JSON object of user id "
    "→ token) or AGENTLOOP_SERVER_JWT_ISSUER in its environment. Only `langgraph dev` serves "
    "without authentication."
)


async def identify(
    settings: Settings, authorization: str | None, headers: Mapping[bytes, bytes], client: Any
) -> Auth.types.MinimalUserDict:
    """Return the caller of a request; 401 for a missing or bad token, 403 for a stranger."""
    server = settings.server
    if not server.authenticates:
        return _development_caller(settings, client)
    token = _bearer(authorization) or headers.get(b"x-api-key", b"").decode()
    user_id = _token_user(settings, token)
    if user_id is not None:
        return await _token_caller(settings, user_id)
    if server.jwt_issuer and identity_provider.looks_like_jwt(token):
        return await _provider_caller(settings, token)
    wanted = "a token AGENTLOOP_SERVER_TOKENS names" if server.tokens else ""
    if server.jwt_issuer:
        wanted += f"{' or ' if wanted else ''}a JWT issued by {server.jwt_issuer}"
    raise Auth.exceptions.HTTPException(status_code=401, detail=f"Send {wanted}.")


def _token_user(settings: Settings, token: str) -> str | None:
    """The user id whose static token this is (compared in constant time), or None."""
    if not token:
        return None
    return next(
        (
            user
            for user, secret in settings.server.tokens.items()
            if hmac.compare_digest(secret.get_secret_value().encode(), token.encode())
        ),
        None,
    )


async def _token_caller(settings: Settings, user_id: str) -> Auth.types.MinimalUserDict:
    if user_id in settings.server.relays:
        # A service, not a person: each of its runs names the person (app/server/relays.py).
        return {"identity": user_id, "display_name": user_id, "permissions": [RELAY]}
    role = await role_of(served_database(), user_id, UNLISTED_ROLE)
    return _person(user_id, user_id, role)


async def _provider_caller(settings: Settings, token: str) -> Auth.types.MinimalUserDict:
    server = settings.server
    try:
        claims = await identity_provider.verified_claims(server, token)
    except identity_provider.TokenRejected as exc:
        raise Auth.exceptions.HTTPException(status_code=401, detail=str(exc)) from None
    named = claims.get(server.jwt_claim)
    if not isinstance(named, str) or not named:
        raise Auth.exceptions.HTTPException(
            status_code=401, detail=f"The token has no {server.jwt_claim!r} claim."
        )
    person = await member(served_database(), named)
    if person is None:
        raise Auth.exceptions.HTTPException(
            status_code=403,
            detail=f"{named} is not a member of this workspace: ask an admin to add them "
            "to team_members.",
        )
    return _person(person.user_id, person.name or person.user_id, person.role)


def _person(user_id: str, name: str, role: str) -> Auth.types.MinimalUserDict:
    permission = ROLE_PERMISSIONS.get(role, ROLE_PERMISSIONS[UNLISTED_ROLE])
    # `role` rides along for the graph and the authorization handlers.
    caller: dict[str, Any] = {
        "identity": user_id,
        "display_name": name,
        "permissions": [permission],
        "role": role,
    }
    return caller  # type: ignore[return-value]


def _development_caller(settings: Settings, client: Any) -> Auth.types.MinimalUserDict:
    if settings.langgraph_api_variant != DEV_SERVER:
        raise Auth.exceptions.HTTPException(status_code=401, detail=NO_TOKENS)
    host = client[0] if isinstance(client, tuple | list) and client else ""
    if not _loopback(str(host)):
        raise Auth.exceptions.HTTPException(
            status_code=401,
            detail=f"langgraph dev without AGENTLOOP_SERVER_TOKENS answers this machine only. "
            f"{NO_TOKENS}",
        )
    return {
        "identity": UNAUTHENTICATED_USER,
        "display_name": "unauthenticated (langgraph dev)",
        "is_authenticated": False,
        "permissions": [UNAUTHENTICATED],
    }


def _bearer(authorization: str | None) -> str:
    scheme, _, token = (authorization or "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"
