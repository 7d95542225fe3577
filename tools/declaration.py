"""How a tool declares its contract where it is defined: arguments, kind and allowed roles."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import date
from functools import cache
from typing import Any, Literal, cast, get_args, get_type_hints

from pydantic import BaseModel, ConfigDict, ValidationError

from core.asker import Asker
from core.db.engine import Database
from core.models.shows import Shows
from core.run_context import ROLES, RunContext
from core.state import Source

Capability = Literal["memory_writer", "result_loader", "date_reader"]
"""A job the graph gives a tool: `memory_writer` stores durable notes during compaction;
`result_loader` brings back a tool result the history shows only as a summary;
`date_reader` turns a time said in words ("tomorrow") into dates."""
ToolKind = Literal["read_only", "mutating", "delegate"]
"""`delegate`: a meta tool the graph carries out itself (create_plan runs the planner)."""


@dataclass(frozen=True)
class ToolContext:
    """What a tool may know about the run that calls it."""

    today: date
    timezone: str
    user_id: str
    user_role: str
    run_id: str
    thread_id: str
    db: Database | None = None
    """The workspace database (None where a tool runs without one, e.g. calendar tests)."""
    idempotency_key: str | None = None
    """Set for an approved mutation; the same key never applies the mutation twice."""

    @classmethod
    def for_run(
        cls, ctx: RunContext, asker: Asker, *, run_id: str, thread_id: str, db: Database | None
    ) -> ToolContext:
        """Return what the run's tools know: its date and zone, the asker, the run and thread."""
        return cls(
            today=ctx.run_date(),
            timezone=ctx.timezone,
            user_id=asker.user_id,
            user_role=asker.role,
            run_id=run_id,
            thread_id=thread_id,
            db=db,
        )

    def database(self) -> Database:
        """Return the workspace database, or fail clearly when the run has none."""
        if self.db is None:
            raise RuntimeError("this tool needs the workspace database, and the run has none")
        return self.db


class ToolArgumentsError(ValueError):
    """The model's arguments do not fit the tool's schema; the message names the fields."""


class ToolFailure(Exception):
    """A tool could not do what was asked; its message is what the model (and person) read."""


ToolFn = Callable[[Any, ToolContext], Awaitable[Any]]


@dataclass(frozen=True)
class GatherContext:
    """What a pack's source finder knows besides the message: the run's date, the database."""

    today: date
    db: Database | None = None
    """The workspace database (None where the run has none: a finder that needs it finds
    nothing)."""


PhraseFinder = Callable[[str, date], list[tuple[int, int]]]
"""Where a text says what a tool reads, given the run's date: the (start, end) of each phrase."""
Preview = Callable[[Any, ToolContext], Awaitable[str]]
"""What a change's validated arguments would do, read from the workspace without changing it;
`ToolFailure`: as given, the change cannot be made, and why."""
SourceFinder = Callable[[str, GatherContext], Awaitable[list[Source]]]
"""What a pack contributes to gather: the sources a message points at (mentioned names
resolved, their notes, documents, the dates it writes out), found without a model call."""
Lister = Callable[[GatherContext], Awaitable[dict[str, list[str]]]]
"""Every record of some of a pack's kinds, by name, kind by kind (`{"client": [...]}`)."""


@dataclass(frozen=True)
class Tool:
    """A declared tool. Tools return data (dicts/lists), never formatted Slack text."""

    name: str
    description: str
    args_schema: type[BaseModel]
    fn: ToolFn
    kind: ToolKind
    roles: frozenset[str]
    pack: str
    timeout_s: float | None = None
    summarize_large_results: bool = True
    """False for a tool whose whole point is to return a full result (rehydration)."""
    provides: frozenset[Capability] = frozenset()
    """Jobs the graph itself gives this tool (e.g. the memory flush writes through the
    `memory_writer`), so generic nodes need not know any pack's tool names."""
    asks: tuple[str, ...] = ()
    """A few requests this tool answers, in a person's words: preselection ranks tools by
    them (with the name and description) before each model call."""
    more_asks: tuple[str, ...] = ()
    """More of them, from its pack's asks file (`Pack.asks`): what a model that learns from
    examples reads too; preselection, whose ranking weighs a few, reads only `asks`."""
    caution: str = ""
    """A line shown with every proposal of this change (a server's word that it destroys)."""
    shows: Shows | None = None
    """What a person reads in its result: the fields that answer the ask and the lead line.
    None (an MCP tool's): a model that writes no prose lays out every field."""
    finds: PhraseFinder | None = None
    """Where a message says what it reads (a date reader: "next Friday"): a model with no
    grammar of its own takes those words as a value to read, not as text."""
    previews: Preview | None = None
    """For a change: a line naming what it would change, shown with its proposal so the person
    approves the record itself ("the note #3: …"), not the words the request used. It raises
    `ToolFailure` when the change cannot be made as given (a name two records share, nothing
    to change): the call is then answered with that reason, never proposed."""

    @property
    def summary(self) -> str:
        """What the tool does, in a line: its description's first line, without the full stop."""
        return (
            self.description.strip().splitlines()[0].rstrip(".") if self.description else self.name
        )

    @property
    def examples(self) -> tuple[str, ...]:
        """Requests it answers: its asks and more asks, or its summary if it has none (MCP)."""
        return tuple(dict.fromkeys((*self.asks, *self.more_asks))) or (self.summary,)

    @property
    def read_only(self) -> bool:
        """Whether the tool has no side effects."""
        return self.kind == "read_only"

    @property
    def mutating(self) -> bool:
        """Whether the tool changes data (and so waits for a person's decision)."""
        return self.kind == "mutating"

    @property
    def takes_dates(self) -> bool:
        """Whether an argument is a date (`datetime.date`, possibly optional)."""
        return any(
            date in (field.annotation, *get_args(field.annotation))
            for field in self.args_schema.model_fields.values()
        )

    def openai_schema(self) -> dict[str, Any]:
        """Return the function definition the chat model is bound with."""
        parameters = self.args_schema.model_json_schema()
        parameters.pop("title", None)
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": parameters,
            },
        }

    def validate(self, raw_args: Any) -> BaseModel:
        """Validate the model's arguments, raising `ToolArgumentsError` naming each bad field.

        A mutating tool also refuses names its schema does not take: a person approves the
        arguments as proposed, and what runs must be exactly those, none silently dropped.
        """
        if not isinstance(raw_args, dict):
            raise ToolArgumentsError(
                f"arguments must be a JSON object, got {type(raw_args).__name__}"
            )
        # A schema that takes any name (an MCP tool's, checked against its JSON schema)
        # refuses what it does not take itself.
        takes_any = self.args_schema.model_config.get("extra") == "allow"
        unaccepted = (
            _unaccepted(self.args_schema, raw_args) if self.mutating and not takes_any else []
        )
        if unaccepted:
            raise ToolArgumentsError(
                f"{', '.join(unaccepted)} {'is' if len(unaccepted) == 1 else 'are'} not accepted "
                f"(it takes: {', '.join(self.args_schema.model_fields)})"
            )
        try:
            return self.args_schema.model_validate(raw_args)
        except ValidationError as exc:
            problems = []
            for error in exc.errors(include_url=False):
                field = ".".join(str(part) for part in error["loc"]) or "(arguments)"
                problems.append(f"{field}: {error['msg']}")
            raise ToolArgumentsError("; ".join(problems)) from exc

    async def run(self, args: BaseModel, ctx: ToolContext) -> Any:
        """Run the tool on validated arguments."""
        return await self.fn(args, ctx)


def declare(
    *,
    pack: str,
    kind: ToolKind = "mutating",
    roles: Iterable[str] = ROLES,
    timeout_s: float | None = None,
    summarize_large_results: bool = True,
    provides: Iterable[Capability] = (),
    asks: Iterable[str] = (),
    shows: Shows | None = None,
    finds: PhraseFinder | None = None,
    previews: Preview | None = None,
) -> Callable[[ToolFn], Tool]:
    """Declare an async tool function `fn(args: ArgsModel, ctx: ToolContext)` as a `Tool`.

    The function name is the tool name and its docstring the description. `kind` defaults
    to "mutating": a tool that does not say it is read-only is treated as one that changes
    things. `asks` are a few requests the tool answers, as a person would write them;
    `shows`, what a person reads in its result; `finds`, where a message says what it reads;
    `previews`, what a proposal of the change would change.
    """
    allowed = frozenset(roles)
    unknown = allowed - set(ROLES)
    if unknown:
        raise ValueError(f"unknown roles {sorted(unknown)}; expected some of {ROLES}")

    def wrap(fn: ToolFn) -> Tool:
        if not inspect.iscoroutinefunction(fn):
            raise TypeError(f"tool {fn.__name__} must be an async function")
        hints = get_type_hints(fn)
        params = list(inspect.signature(fn).parameters)
        args_schema = hints.get(params[0]) if params else None
        if not (isinstance(args_schema, type) and issubclass(args_schema, BaseModel)):
            raise TypeError(f"tool {fn.__name__}: first parameter must be a pydantic model")
        description = inspect.getdoc(fn)
        if not description:
            raise TypeError(f"tool {fn.__name__} needs a docstring: it is the model's manual")
        return Tool(
            name=fn.__name__,
            description=description,
            args_schema=args_schema,
            fn=fn,
            kind=kind,
            roles=allowed,
            pack=pack,
            timeout_s=timeout_s,
            summarize_large_results=summarize_large_results,
            provides=frozenset(provides),
            asks=tuple(asks),
            shows=shows,
            finds=finds,
            previews=previews,
        )

    return wrap


@cache
def _forbidding_extras(schema: type[BaseModel]) -> type[BaseModel]:
    """`schema`, refusing names it does not take once its own before-validators have run.

    A before-validator may read a name a proposal made earlier (`matching` for `note`).
    """
    config = ConfigDict(**{**schema.model_config, "extra": "forbid"})
    return cast(type[BaseModel], type(schema.__name__, (schema,), {"model_config": config}))


def _unaccepted(schema: type[BaseModel], raw_args: dict[str, Any]) -> list[str]:
    """The names in `raw_args` that `schema` does not take."""
    try:
        _forbidding_extras(schema).model_validate(raw_args)
    except ValidationError as exc:
        return sorted(
            str(e["loc"][0]) for e in exc.errors() if e["type"] == "extra_forbidden" and e["loc"]
        )
    return []
