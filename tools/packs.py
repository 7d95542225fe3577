"""What a pack may contribute to the runtime: one small declaration, the same for every pack.

A pack is a Python package whose `PACK` is a `Pack`, named in the `agentloop.packs`
entry-point group of its distribution. agentloop's own packs are declared there exactly as a
team's are; the runtime reads only these declarations and never imports a pack by name.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from core.db.engine import Database
from tools.declaration import Lister, SourceFinder, Tool

ENTRY_POINTS = "agentloop.packs"
"""The entry-point group packs are found in (`name = "package.module:PACK"`)."""
NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")
"""A pack's name: also its migrations' branch label and the prefix of nothing else."""

Seeder = Callable[[Database], Awaitable[dict[str, int]]]
"""Loads a pack's demo data, adding only what is missing; returns rows added per table."""


@dataclass(frozen=True)
class Pack:
    """Everything a pack contributes: tools, gather sources, tables, demo data, scenarios, docs.

    Every field but `name` and `summary` is optional: a pack may bring only tools, only a
    gather source, or tables its tools read.
    """

    name: str
    summary: str
    """One line: what the pack is for (`agentloop tools` shows it)."""
    tools: tuple[Tool, ...] = ()
    sources: tuple[SourceFinder, ...] = ()
    """What gather finds for each message without a model call (mentions, dates said)."""
    listers: tuple[Lister, ...] = ()
    """Name every record of some of its kinds: where a kind has a few, the tools' arguments of
    its name list them (`tools/choices.py`), and a question for a missing one names them."""
    records: tuple[str, ...] = ()
    """The kinds of record those sources name: a source of such a type names a value for
    the tools' arguments of that name (a `client` source, a `client` argument)."""
    read_as: tuple[tuple[str, str], ...] = ()
    """(A kind of record, a name its tools' example asks use for one): when the embedded model
    tells what a message asks, a record of that kind reads as that name, so that the message
    reads like the examples. Without one, a record reads as its kind's words ("client")."""
    migrations: Path | None = None
    """The Alembic versions folder of the pack's tables: its own branch, labelled with the
    pack's name, run by `agentloop db upgrade` only while the pack is enabled."""
    seed: Seeder | None = None
    """Loads the pack's part of the demo workspace (`agentloop seed --demo`)."""
    scenarios: Path | None = None
    """A folder of evaluation scenarios (`agentloop eval` runs those of enabled packs)."""
    docs: Path | None = None
    """The pack's documentation page."""
    starters: tuple[tuple[str, str], ...] = ()
    """(A short title, an ask) a person could start with on its demo data: the CLI's chat
    and Slack's suggested prompts offer them (its tools' first example asks otherwise)."""
    asks: Path | None = None
    """A TOML file of more example asks for its tools, a table each (`[create_task]` with
    `asks = [...]`), their `more_asks`: a model that learns from examples (the embedded one)
    tells apart requests in words nobody declared the better the more of them it has."""
    requires: tuple[str, ...] = ()
    """Packs this one builds on (their tables or tools), enabled before it."""
    origin: str = field(default="", compare=False)
    """Where it came from (a distribution and its version, or a config file): set on loading."""

    def __post_init__(self) -> None:
        if not NAME.fullmatch(self.name):
            raise ValueError(
                f"pack name {self.name!r} must be lowercase letters, digits and _ (from a letter)"
            )
        strays = [tool.name for tool in self.tools if tool.pack != self.name]
        if strays:
            raise ValueError(
                f"pack {self.name!r} lists tools declared for another pack: {', '.join(strays)}"
            )
        if unknown := sorted({kind for kind, _ in self.read_as} - set(self.records)):
            raise ValueError(f"pack {self.name!r} reads kinds it names no record of: {unknown}")
        if self.migrations is not None and not self.migrations.is_dir():
            raise ValueError(f"pack {self.name!r}: no migrations folder at {self.migrations}")
        if self.asks is not None:
            more = _more_asks(self.name, self.asks, {tool.name for tool in self.tools})
            tools = tuple(replace(t, more_asks=more.get(t.name, ())) for t in self.tools)
            object.__setattr__(self, "tools", tools)  # frozen: set while being made
        said = " ".join(example for tool in self.tools for example in tool.examples)
        if unsaid := [name for _, name in self.read_as if name not in said]:
            raise ValueError(f"pack {self.name!r} reads records as names no example says: {unsaid}")


def _more_asks(pack: str, path: Path, tools: set[str]) -> dict[str, tuple[str, ...]]:
    """The asks file's lists, by tool.

    Raises:
        ValueError: the file cannot be read, or a table is not one of the pack's tools' asks.
    """
    try:
        tables = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ValueError(f"pack {pack!r}: cannot read its asks file {path}: {error}") from error
    more: dict[str, tuple[str, ...]] = {}
    for name, table in tables.items():
        asks = table.get("asks") if isinstance(table, dict) else None
        if name not in tools:
            raise ValueError(f"pack {pack!r}: its asks file {path} names no tool of it: {name!r}")
        if not isinstance(asks, list) or not all(isinstance(a, str) and a.strip() for a in asks):
            raise ValueError(f"pack {pack!r}: [{name}] in {path} needs asks = a list of texts")
        more[name] = tuple(asks)
    return more
