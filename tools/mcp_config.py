"""The MCP servers file (`AGENTLOOP_MCP_CONFIG`), in the format people write for MCP clients.

```json
{"mcpServers": {
  "tickets": {"command": "python", "args": ["-m", "tickets_server"], "env": {"TOKEN": "…"}},
  "github": {"url": "https://…/mcp", "transport": "streamable_http",
             "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}}
}}
```

Besides what an MCP client reads, each server may say how far agentloop trusts it: `trust`
("none", the default: every tool is a change that waits for a person; "annotations": the
server's `readOnlyHint`, `destructiveHint` and `idempotentHint` are believed), `reads` (tools
to treat as reads whatever the server says), `roles` and `toolRoles` (who may use its tools),
`optional` (a server that cannot start is left out with a warning instead of stopping the
process), `timeout` (seconds a call may take) and `asks` (a TOML file of example requests
for its tools, as a pack's `asks`: a table per tool named as agentloop names it,
`[tickets__close_ticket]` with `asks = [...]`; a relative path is read from the servers
file's folder). `${VAR}` in `env` and `headers` values is read from the environment of the
process that reads the file, so secrets need not be in it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from core.run_context import ROLES
from tools.packs import NAME

Trust = Literal["none", "annotations"]
_BRACED = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class McpConfigError(Exception):
    """The servers file cannot be used; the message is one line naming the file and why."""


class ServerConfig(BaseModel):
    """One server: how to reach it, and how far its own word about its tools is believed."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] | None = None
    cwd: str | None = None
    url: str | None = None
    transport: Literal["stdio", "streamable_http", "streamable-http", "http", "sse"] | None = None
    headers: dict[str, str] | None = None
    trust: Trust = "none"
    reads: frozenset[str] = frozenset()
    roles: frozenset[str] | None = None
    tool_roles: dict[str, frozenset[str]] = Field(default_factory=dict, alias="toolRoles")
    optional: bool = False
    timeout: float = Field(default=30.0, gt=0, le=600)
    asks: Path | None = None
    """More example asks for its tools (`Pack.asks`), by their names in agentloop."""

    @model_validator(mode="after")
    def _one_way_to_reach_it(self) -> ServerConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError("give either `command` (stdio) or `url` (HTTP), not both or none")
        if self.url is not None and self.transport == "stdio":
            raise ValueError("a `url` server speaks streamable_http or sse, not stdio")
        if self.command is not None and self.transport not in (None, "stdio"):
            raise ValueError("a `command` server speaks stdio")
        return self

    @field_validator("roles")
    @classmethod
    def _known_roles(cls, roles: frozenset[str] | None) -> frozenset[str] | None:
        return _roles(roles) if roles is not None else None

    @field_validator("tool_roles")
    @classmethod
    def _known_tool_roles(cls, by_tool: dict[str, frozenset[str]]) -> dict[str, frozenset[str]]:
        return {tool: _roles(roles) for tool, roles in by_tool.items()}

    @field_validator("asks")
    @classmethod
    def _beside_the_file(cls, asks: Path | None, info: ValidationInfo) -> Path | None:
        """A relative path is read from the servers file's folder (`read` says which)."""
        folder = info.context.get("folder") if isinstance(info.context, dict) else None
        return folder / asks if asks is not None and folder is not None else asks

    def connection(self) -> dict[str, Any]:
        """The connection langchain-mcp-adapters opens a session with."""
        if self.command is not None:
            stdio: dict[str, Any] = {"transport": "stdio", "command": self.command}
            stdio["args"] = list(self.args)
            if self.env is not None:
                stdio["env"] = dict(self.env)
            if self.cwd is not None:
                stdio["cwd"] = self.cwd
            return stdio
        transport = "sse" if self.transport == "sse" else "streamable_http"
        http: dict[str, Any] = {"transport": transport, "url": self.url}
        if self.headers:
            http["headers"] = dict(self.headers)
        return http

    @property
    def where(self) -> str:
        """How the server is reached, for a person: its command or its URL."""
        return self.url or " ".join([Path(self.command or "").name, *self.args]).strip()


class McpConfig(BaseModel):
    """The servers file: `mcpServers`, by name."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, frozen=True)

    servers: dict[str, ServerConfig] = Field(alias="mcpServers")

    @field_validator("servers")
    @classmethod
    def _names(cls, servers: dict[str, ServerConfig]) -> dict[str, ServerConfig]:
        for name in servers:
            if not NAME.fullmatch(name):
                raise ValueError(
                    f"server name {name!r}: use lowercase letters, digits and _ (it names "
                    "the server's pack and prefixes its tools)"
                )
        return servers


def read(path: Path) -> McpConfig:
    """Read and check the servers file.

    Raises:
        McpConfigError: one line naming the file and what is wrong.
    """
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise McpConfigError(f"MCP servers file {path}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise McpConfigError(f"MCP servers file {path} is not valid JSON: {exc}") from None
    try:
        return McpConfig.model_validate(_expanded(raw), context={"folder": path.parent})
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "(file)"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        message = first["msg"].removeprefix("Value error, ")
        raise McpConfigError(f"MCP servers file {path}: {where}: {message}{more}") from None


def _expanded(raw: Any) -> Any:
    """`raw` with `${VAR}` in each server's `env` and `headers` values read from the environment."""
    servers = raw.get("mcpServers") if isinstance(raw, dict) else None
    if not isinstance(servers, dict):
        return raw
    for server in servers.values():
        for part in ("env", "headers"):
            values = server.get(part) if isinstance(server, dict) else None
            if isinstance(values, dict):
                server[part] = {
                    key: _BRACED.sub(lambda m: os.environ.get(m.group(1), m.group(0)), value)
                    if isinstance(value, str)
                    else value
                    for key, value in values.items()
                }
    return raw


def _roles(roles: frozenset[str]) -> frozenset[str]:
    unknown = sorted(roles - set(ROLES))
    if unknown:
        raise ValueError(f"unknown roles {unknown}; roles are {', '.join(ROLES)}")
    return roles
