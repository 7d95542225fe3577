"""Who calls the LangGraph Server: a bearer token named in `AGENTLOOP_SERVER_TOKENS`.

A caller's token comes as `Authorization: Bearer <token>` or as `x-api-key` (what the SDK
and `RemoteGraph` send from `LANGGRAPH_API_KEY`). The caller is the token's user id, with
the role the workspace lists for them. Without any token set, `langgraph dev` serves its
loopback callers without authentication, and says so: nobody is identified, and a run's
context names who it is for; any other server refuses every request until tokens are set.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
from collections.abc import Mapping
from typing import Any

from langgraph_sdk import Auth

from core.db.people import role_of
from core.server_access import ADMIN, RELAY, UNAUTHENTICATED, UNLISTED_ROLE
from core.settings import Settings
from graph.served import served_database

logger = logging.getLogger(__name__)

DEV_SERVER = "local_dev"
"""What `langgraph dev` sets LANGSMITH_LANGGRAPH_API_VARIANT to (a built server does not)."""
UNAUTHENTICATED_USER = "unauthenticated"

NO_TOKENS = (
    "This server has no callers set up: set AGENTLOOP_SERVER_TOKENS (a JSON object of user id "
    "→ token) in its environment. Only `langgraph dev` serves without authentication."
)


async def identify(
    settings: Settings, authorization: str | None, headers: Mapping[bytes, bytes], client: Any
) -> Auth.types.MinimalUserDict:
    """Return the caller of a request, or raise 401 for a missing or unknown token."""
    tokens = settings.server.tokens
    if not tokens:
        return _development_caller(settings, client)
    token = _bearer(authorization) or headers.get(b"x-api-key", b"").decode()
    user_id = next(
        (
            user
            for user, secret in tokens.items()
            if token and hmac.compare_digest(secret.get_secret_value(), token)
        ),
        None,
    )
    if user_id is None:
        raise Auth.exceptions.HTTPException(
            status_code=401, detail="Send a token AGENTLOOP_SERVER_TOKENS names."
        )
    role = await role_of(served_database(), user_id, UNLISTED_ROLE)
    granted = [RELAY] if user_id in settings.server.relays else []
    if role == "admin":
        granted.append(ADMIN)
    return {"identity": user_id, "display_name": user_id, "permissions": granted}


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
