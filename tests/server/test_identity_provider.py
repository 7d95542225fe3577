"""Identity from the team's identity provider: JWTs signed by a loopback OIDC provider, checked
by an authenticating `langgraph dev` (langgraph-sdk; SQLite and PostgreSQL workspaces)."""

from __future__ import annotations

from typing import Any

import jwt
from langgraph_sdk import get_client

from tests.server.dev_server import DevServer, refusal
from tests.support.oidc_provider import IdentityProvider, new_key

GRACE = {"sub": "auth0|grace", "email": "grace@agency.example"}
HELLO = "Hello! What can I do for you?"


def as_bearer(server: DevServer, token: str) -> Any:
    return get_client(url=server.url, headers={"Authorization": f"Bearer {token}"})


async def test_a_person_the_workspace_lists_signs_in_with_the_providers_token(
    authed_server: DevServer, identity_provider: IdentityProvider, write_script
) -> None:
    grace = as_bearer(authed_server, identity_provider.token(GRACE))
    thread = await grace.threads.create()
    # The claim names the person; the server knows them by their workspace id.
    assert thread["metadata"]["asker"] == "U0GRACE"
    await grace.runs.wait(
        thread["thread_id"],
        "agent",
        input={"messages": [{"type": "human", "content": "hello"}]},
        context={"user_id": "U0ADA", "model": write_script([{"content": HELLO}])},
    )
    state = await grace.threads.get_state(thread["thread_id"])
    assert state["values"]["asker"] == {"user_id": "U0GRACE", "role": "member"}
    # A viewer's token carries the viewer's role: she changes nothing.
    maya = as_bearer(authed_server, identity_provider.token({"email": "MAYA@agency.example"}))
    detail = await refusal(maya.threads.delete(thread["thread_id"]))
    assert detail.startswith("Only U0GRACE (who started it) or an admin")
    # A clock a little behind the provider's is no reason to refuse.
    late = identity_provider.token(GRACE, expires_in=-10)
    assert (await as_bearer(authed_server, late).threads.get(thread["thread_id"]))["metadata"]


async def test_a_token_that_does_not_hold_is_refused_with_one_line(
    authed_server: DevServer, identity_provider: IdentityProvider
) -> None:
    provider = identity_provider
    header = jwt.get_unverified_header(provider.token(GRACE))
    cases = {
        "The token has expired: sign in again.": provider.token(GRACE, expires_in=-120),
        "The token is not for this server (agentloop-test-server).": provider.token(
            GRACE, aud="another-server"
        ),
        f"The token was not issued by {provider.issuer}.": provider.token(
            GRACE, iss="https://idp.example"
        ),
        "The token's signature does not verify.": provider.token(GRACE, key=new_key()),
        "The token's algorithm 'none' is not accepted.": jwt.encode(
            {**GRACE, "iss": provider.issuer, "aud": "agentloop-test-server"},
            None,
            algorithm="none",
            headers={"kid": header["kid"]},
        ),
        "The token's algorithm 'HS256' is not accepted.": jwt.encode(
            {**GRACE, "iss": provider.issuer, "aud": "agentloop-test-server"},
            "a shared secret of thirty-two bytes!",
            algorithm="HS256",
            headers={"kid": header["kid"]},
        ),
        "The token has no 'email' claim.": provider.token({"sub": "auth0|grace"}),
    }
    for said, token in cases.items():
        assert await refusal(as_bearer(authed_server, token).threads.search(), 401) == said
    # Signed, current and for this server, but for nobody the workspace lists.
    stranger = provider.token({"email": "mallory@elsewhere.example"})
    detail = await refusal(as_bearer(authed_server, stranger).threads.search(), 403)
    assert detail == (
        "mallory@elsewhere.example is not a member of this workspace: ask an admin to add "
        "them to team_members."
    )
    # Neither a token nor a JWT: the server says what it takes.
    detail = await refusal(as_bearer(authed_server, "not-a-token").threads.search(), 401)
    assert detail == (
        f"Send a token AGENTLOOP_SERVER_TOKENS names or a JWT issued by {provider.issuer}."
    )


async def test_the_providers_keys_are_fetched_once_and_again_for_a_new_key(
    authed_server: DevServer, identity_provider: IdentityProvider
) -> None:
    grace = as_bearer(authed_server, identity_provider.token(GRACE))
    await grace.threads.search()  # the server has the keys now
    fetched = identity_provider.jwks_fetches
    for _ in range(5):
        await as_bearer(authed_server, identity_provider.token(GRACE)).threads.search()
    assert identity_provider.jwks_fetches == fetched
    # The provider rotates its key: a token signed with the new one is accepted at once.
    identity_provider.rotate()
    rotated = as_bearer(authed_server, identity_provider.token(GRACE))
    assert isinstance(await rotated.threads.search(), list)
    assert identity_provider.jwks_fetches == fetched + 1
    # The old key is still listed, and its tokens still hold.
    await grace.threads.search()
    assert identity_provider.jwks_fetches == fetched + 1
