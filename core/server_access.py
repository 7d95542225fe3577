"""Who may call a LangGraph Server that serves agentloop, and with which models.

The server's custom auth (`app/server/auth.py`) reads this section of `Settings`
(`AGENTLOOP_SERVER_*`: tokens, relays, the identity provider, the models runs may choose)
and grants each caller the permissions below; the graph reads them back from the run's
authenticated user to know whether the run's context may name the person it acts for.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

RELAY = "agentloop:relay"
"""A service (the Slack app or CLI through `AGENTLOOP_GRAPH_URL`) that acts for the person
its run's context names, having identified them itself."""
UNAUTHENTICATED = "agentloop:unauthenticated"
"""The development default of `langgraph dev` with no tokens set: nobody is authenticated,
and a run's context says who it is for, as Studio's form does."""
ADMIN = "agentloop:admin"
"""The caller is an admin of the workspace: they may edit a thread's state, and change,
copy or delete any thread."""
MEMBER = "agentloop:member"
"""The caller is a member of the workspace: they may change the threads they started."""
VIEWER = "agentloop:viewer"
"""The caller may read and ask, and changes nothing on the server."""
ROLE_PERMISSIONS = {"admin": ADMIN, "member": MEMBER, "viewer": VIEWER}
"""The permission a person's workspace role grants on the server."""
UNLISTED_ROLE = "viewer"
"""The role of a token's caller the workspace's `team_members` does not list."""
SCRIPTED = "scripted:"
"""The prefix of the models that replay a file of the server's (tests and demos)."""


class ServerSection(BaseModel):
    """How a LangGraph Server authenticates its callers (`AGENTLOOP_SERVER_*`)."""

    model_config = ConfigDict(frozen=True)

    tokens: dict[str, SecretStr] = Field(
        default_factory=dict,
        description="Bearer tokens the server accepts, a JSON object of user id → token; the "
        "user id is the caller (a Slack id or email the workspace lists, or a relay's name).",
    )
    relays: frozenset[str] = Field(
        default=frozenset(),
        description="User ids (of `tokens`) that act for the person their run's context "
        "names, a JSON list: the Slack app or CLI driving the server with AGENTLOOP_GRAPH_URL.",
    )
    jwt_issuer: str | None = Field(
        default=None,
        description="The identity provider's OIDC issuer (`iss`): set, the server also "
        "accepts the signed JWTs it issues (with AGENTLOOP_SERVER_JWT_AUDIENCE).",
    )
    jwt_audience: str | None = Field(
        default=None, description="The audience (`aud`) a JWT must name: this server's."
    )
    jwks_url: str | None = Field(
        default=None,
        description="Where the provider publishes its signing keys (JWKS). Default: the "
        "`jwks_uri` of the issuer's /.well-known/openid-configuration.",
    )
    jwt_claim: str = Field(
        default="email",
        description="The JWT claim that names the person (`email` or `sub`), matched against "
        "the email and Slack id of `team_members`.",
    )
    jwt_leeway_s: float = Field(
        default=30.0, ge=0, description="Clock skew allowed on a JWT's exp, nbf and iat."
    )
    jwks_cache_s: float = Field(
        default=600.0,
        gt=0,
        description="How long fetched signing keys are used before they are fetched again "
        "(a key id not among them fetches them at once).",
    )
    models: frozenset[str] = Field(
        default=frozenset(),
        description="Models a run may choose on a server that authenticates, a JSON list "
        "of specs; the server's own AGENTLOOP_MODEL (and compaction model) is always allowed.",
    )
    scripted_models: bool = Field(
        default=False,
        description="Let runs choose any `scripted:` model file on a server that "
        "authenticates (a test server); `langgraph dev` without authentication always may.",
    )

    @model_validator(mode="after")
    def _issuer_with_audience(self) -> ServerSection:
        if bool(self.jwt_issuer) != bool(self.jwt_audience):
            raise ValueError(
                "set AGENTLOOP_SERVER_JWT_ISSUER and AGENTLOOP_SERVER_JWT_AUDIENCE together"
            )
        return self

    @property
    def authenticates(self) -> bool:
        """Whether the server knows its callers (tokens or an identity provider)."""
        return bool(self.tokens or self.jwt_issuer)

    def allows_model(self, spec: str | None, *operators: str | None) -> bool:
        """Whether a run may choose `spec` (None: the server's default, always allowed).

        `operators` are the specs the operator set elsewhere (the default model, the
        compaction model). On a server without authentication every model is allowed.
        """
        if not spec or not self.authenticates:
            return True
        if spec in self.models or spec in operators:
            return True
        return self.scripted_models and spec.startswith(SCRIPTED)
