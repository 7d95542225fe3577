"""An MCP server's tools as agentloop tools, under the same promises as a pack's own.

Names are namespaced by server (`tickets__close_ticket`). The server's annotations are hints
and untrusted by default: every tool of an untrusted server is a change that waits for a
person. An approved change is attempted at most once (`tools.external_calls`), its
idempotency key sent in the call's `_meta`; a read whose session was lost is tried once more
on a new session. Errors, timeouts and dropped sessions become messages the model reads.
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

import httpx
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from langchain_core.tools import BaseTool
from mcp import McpError
from mcp.types import CONNECTION_CLOSED, CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict, model_validator

from core.run_context import ROLES
from tools.declaration import Tool, ToolContext, ToolFailure, ToolKind
from tools.external_calls import CallNotMade, OutcomeUnknown, attempt_once
from tools.mcp_config import ServerConfig
from tools.mcp_sessions import LOST, McpServer, ServerUnavailable, reason

SEPARATOR = "__"
"""Between a server's name and its tool's: `tickets__close_ticket`."""
MAX_NAME = 64
"""The longest function name chat model APIs take."""
CHANGE_ROLES = frozenset({"member", "admin"})
"""Who may ask for a server's changes unless its config says: a viewer never reaches one."""
IDEMPOTENCY_META = "idempotencyKey"
"""The `_meta` key an approved change's idempotency key travels under."""
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def server_tools(server: McpServer, listed: list[BaseTool]) -> list[Tool]:
    """Declare each listed tool of `server` as the config and (if trusted) its hints say."""
    return [_declare(server, tool) for tool in listed]


def _declare(server: McpServer, listed: BaseTool) -> Tool:
    config = server.config
    hints = listed.metadata or {}
    trusted = config.trust == "annotations"
    reads = listed.name in config.reads or (trusted and hints.get("readOnlyHint") is True)
    kind: ToolKind = "read_only" if reads else "mutating"
    # Per MCP, a tool that is not read-only is destructive unless it says otherwise.
    destructive = trusted and not reads and hints.get("destructiveHint") is not False
    idempotent = trusted and not reads and hints.get("idempotentHint") is True
    name = _UNSAFE.sub("_", f"{server.name}{SEPARATOR}{listed.name}")[:MAX_NAME]
    schema = listed.args_schema if isinstance(listed.args_schema, dict) else {}
    return Tool(
        name=name,
        description=(listed.description or f"{listed.name}, a tool of {server.name}").strip(),
        args_schema=_arguments(name, schema),
        fn=_caller(server, listed.name, name, reads=reads, idempotent=idempotent),
        kind=kind,
        roles=_roles(config, listed.name, reads),
        pack=server.name,
        timeout_s=config.timeout + 2,  # the call's own timeout says "unknown" first
        caution=(
            f"The {server.name} server marks this tool destructive: it may delete or "
            "overwrite data."
            if destructive
            else ""
        ),
    )


def _roles(config: ServerConfig, tool: str, reads: bool) -> frozenset[str]:
    allowed = config.tool_roles.get(tool) or config.roles
    if allowed is None:
        return frozenset(ROLES) if reads else CHANGE_ROLES
    return allowed if reads else allowed - {"viewer"}


def _arguments(name: str, schema: dict[str, Any]) -> type[BaseModel]:
    """A model that takes the arguments the tool's JSON schema takes, checked against it."""
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError:
        schema = {"type": "object"}  # a server's broken schema still lets its tool be called
    validator = Draft202012Validator(schema)

    class Arguments(BaseModel):
        model_config: ClassVar[ConfigDict] = ConfigDict(extra="allow")

        @model_validator(mode="before")
        @classmethod
        def _fits_the_schema(cls, values: Any) -> Any:
            problems = [
                f"{'.'.join(map(str, error.absolute_path)) or '(arguments)'}: {error.message}"
                for error in validator.iter_errors(values)
            ]
            if problems:
                raise ValueError("; ".join(problems[:5]))
            return values

        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
            return dict(schema)

    Arguments.__name__ = Arguments.__qualname__ = f"{name}_arguments"
    return Arguments


def _caller(server: McpServer, tool: str, name: str, *, reads: bool, idempotent: bool) -> Any:
    where = f"the {server.name} MCP server ({server.config.where})"

    async def read(args: BaseModel, ctx: ToolContext) -> Any:
        values = args.model_dump(mode="json")
        try:
            result = await server.call(tool, values)
        except ServerUnavailable as exc:
            raise ToolFailure(str(exc)) from None
        except (*LOST, OSError, httpx.TransportError) as exc:
            if _timed_out(exc):
                timeout = server.config.timeout
                raise ToolFailure(f"{where} did not answer within {timeout:.0f} s") from None
            try:  # a read is safe to send again, on a new session
                result = await server.call(tool, values)
            except (*LOST, OSError, httpx.TransportError, ServerUnavailable) as again:
                raise ToolFailure(f"{where} could not be reached: {reason(again)}") from None
        return _outcome(result, name)

    async def change(args: BaseModel, ctx: ToolContext) -> Any:
        values = args.model_dump(mode="json")

        async def call() -> dict[str, Any]:
            if not await server.alive():
                raise CallNotMade(f"{where} cannot be reached")
            meta = {IDEMPOTENCY_META: ctx.idempotency_key} if ctx.idempotency_key else None
            try:
                result = await server.call(tool, values, meta=meta)
            except (*LOST, OSError, httpx.TransportError) as exc:
                what = (
                    f"{where} did not answer within {server.config.timeout:.0f} s"
                    if _timed_out(exc)
                    else f"the connection to {where} was lost during the call"
                )
                raise OutcomeUnknown(what) from exc
            return _recorded(result)

        outcome = await attempt_once(
            ctx, name, values, call, idempotent=idempotent, check=f"in {where} whether it happened"
        )
        if "error" in outcome:
            raise ToolFailure(f"{name}: the server says it failed: {outcome['error']}")
        return outcome.get("result", outcome)

    return read if reads else change


def _timed_out(exc: BaseException) -> bool:
    return isinstance(exc, McpError) and exc.error.code != CONNECTION_CLOSED


def _outcome(result: CallToolResult, name: str) -> Any:
    """A call's result as data; an `isError` result is a failure the model reads."""
    if result.isError:
        raise ToolFailure(f"{name}: the server says it failed: {_text(result)}")
    if result.structuredContent is not None:
        return result.structuredContent
    text = _text(result)
    try:
        return json.loads(text)
    except ValueError:
        return {"text": text}


def _recorded(result: CallToolResult) -> dict[str, Any]:
    """What the receipt keeps of a change's result: the data, or the server's error."""
    if result.isError:
        return {"error": _text(result)}
    return {"result": _outcome(result, "")}


def _text(result: CallToolResult) -> str:
    parts = [
        block.text if isinstance(block, TextContent) else f"[{block.type} content]"
        for block in result.content
    ]
    return "\n".join(parts).strip() or "(no content)"
