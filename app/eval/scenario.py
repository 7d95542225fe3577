"""The scenario file format (YAML), validated with pydantic; a bad file is one clear error.

A scenario is a conversation in one thread on a fresh demo workspace: messages and
decisions (steps), the scripted model's answers for each step, and what each step must
show (status, tool calls, proposals, text), plus optional row counts at the end.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Literal

import yaml
from pydantic import Field, ValidationError, field_validator, model_validator

from app.eval.steps import CallStatus, Expect, Role, RunStatus, Step, Strict, context_type
from core.db.base import Base
from core.models.scripted import ScriptedTurn
from core.settings import GuardMode

__all__ = ["CallStatus", "Expect", "Role", "RunStatus", "Step"]

Reference = Literal["agencyclaw", "orion", "hotel", "buildos", "goclaw", "feedback"]
"""The reference design a scenario's example comes from (feedback: a turn a person rated down,
drafted by `agentloop eval --from-feedback`)."""
Scalar = str | int | float | bool | date | None

_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
SHIPPED = Path(__file__).with_name("scenarios")
"""The runtime's own scenarios (those of the enabled packs come with the packs)."""


class ScenarioFileError(ValueError):
    """A scenario file that cannot be read or does not fit the format; names file and field."""

    def __init__(self, path: Path, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        super().__init__(f"{path}: " + "; ".join(problems))


class ScenarioFilesError(ValueError):
    """One or more scenario files are bad."""

    def __init__(self, errors: list[ScenarioFileError]) -> None:
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))


class ScenarioSettings(Strict):
    """Deployment settings a scenario runs with (the rest are the defaults)."""

    input_guard: GuardMode | None = None
    max_tool_calls_per_turn: int | None = Field(default=None, ge=1)
    max_rounds: int | None = Field(default=None, ge=1)
    verify_max_attempts: int | None = Field(default=None, ge=1)
    verify_judge: bool | None = None
    confirmation_ttl_hours: float | None = Field(default=None, gt=0)
    approver_roles: frozenset[str] | None = None
    history_turns: int | None = Field(default=None, ge=1)


class RowCount(Strict):
    """After the last step: how many rows of a workspace table match."""

    table: str
    where: dict[str, Scalar] = Field(default_factory=dict)
    """Column → value (null: the column is NULL)."""
    where_not: dict[str, Scalar] = Field(default_factory=dict)
    """Column → value it must differ from (null: the column is NOT NULL)."""
    count: int = Field(ge=0)

    @model_validator(mode="after")
    def _known_columns(self) -> RowCount:
        table = Base.metadata.tables.get(self.table)
        if table is None:
            known = ", ".join(sorted(Base.metadata.tables))
            raise ValueError(f"unknown table {self.table!r}; tables: {known}")
        for column in [*self.where, *self.where_not]:
            if column not in table.c:
                raise ValueError(f"table {self.table} has no column {column!r}")
        return self


class Scenario(Strict):
    """One conversation to evaluate, on its own fresh workspace and checkpoints."""

    name: str
    description: str = Field(min_length=1)
    references: list[Reference] = Field(min_length=1)
    packs: list[str] = Field(default_factory=list)
    """The packs whose tools or tables it uses: it runs only where they are all enabled."""
    user: str = "U0GRACE"
    role: Role = "member"
    today: date = date(2026, 11, 22)
    context_type: str = "general"
    settings: ScenarioSettings = Field(default_factory=ScenarioSettings)
    context_files: dict[str, str] = Field(default_factory=dict)
    """Markdown files for the context folder (name → text), as Orion's `orion-context/`."""
    steps: list[Step] = Field(min_length=1)
    rows: list[RowCount] = Field(default_factory=list)
    source: str = ""
    """The file it was read from (set by the loader)."""
    draft: str = ""
    """What a draft from feedback (`eval --from-feedback`) still needs; a draft never runs."""

    @field_validator("name")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not _NAME.match(value):
            raise ValueError("use lowercase letters, digits, '-' and '_'")
        return value

    @field_validator("context_type")
    @classmethod
    def _known_context_type(cls, value: str) -> str:
        return context_type(value)

    @field_validator("draft")
    @classmethod
    def _completed(cls, value: str) -> str:
        if value:
            raise ValueError(
                "still a draft from feedback: replace its TODOs with what should have "
                "happened, then delete this field"
            )
        return value

    @field_validator("context_files")
    @classmethod
    def _plain_names(cls, files: dict[str, str]) -> dict[str, str]:
        for name in files:
            if "/" in name or "\\" in name or not name.endswith(".md"):
                raise ValueError(f"{name!r}: context files are plain names ending in .md")
        return files

    def script(self) -> list[ScriptedTurn]:
        """Every step's scripted answers, in the order the model will be called."""
        return [turn for step in self.steps for turn in step.model]


def load_scenario(path: Path) -> Scenario:
    """Read one scenario file; the name defaults to the file's stem."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ScenarioFileError(path, [f"cannot read it: {exc}"]) from exc
    except yaml.YAMLError as exc:
        raise ScenarioFileError(path, [f"not valid YAML: {exc}"]) from exc
    if not isinstance(raw, dict):
        raise ScenarioFileError(path, ["the file must hold a mapping (name, steps, ...)"])
    raw.setdefault("name", path.stem)
    try:
        return Scenario.model_validate({**raw, "source": str(path)})
    except ValidationError as exc:
        raise ScenarioFileError(path, _problems(exc)) from exc


def _problems(exc: ValidationError) -> list[str]:
    """One line per error: the field's path (steps[1].expect.status) and what is wrong."""
    problems = []
    for error in exc.errors(include_url=False):
        where = ""
        for part in error["loc"]:
            where += f"[{part}]" if isinstance(part, int) else f".{part}" if where else str(part)
        problems.append(f"{where or '(file)'}: {error['msg']}")
    return problems


def find_scenarios(paths: list[Path]) -> list[Path]:
    """Expand folders into their *.yaml / *.yml files (sorted); files are kept as given."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml"))
        else:
            found.append(path)
    return found


def needed_packs(path: Path, enabled: set[str]) -> list[str]:
    """The packs a scenario file says it needs that are not enabled ([] if it can run).

    Read before the file is validated: a table it counts belongs to its pack, and is only
    known once that pack is loaded.
    """
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return []  # load_scenario says what is wrong with it
    packs = raw.get("packs") if isinstance(raw, dict) else None
    if not isinstance(packs, list):
        return []
    return [str(pack) for pack in packs if str(pack) not in enabled]


def load_all(
    paths: list[Path], enabled: set[str] | None = None
) -> tuple[list[Scenario], dict[str, list[str]]]:
    """Load every scenario file; all bad files are reported together, and names must differ.

    With `enabled` (the enabled packs' names), a file needing another pack is not loaded:
    it comes back among the skipped (its path → the packs it needs).
    """
    scenarios: list[Scenario] = []
    skipped: dict[str, list[str]] = {}
    errors: list[ScenarioFileError] = []
    for path in find_scenarios(paths):
        missing = needed_packs(path, enabled) if enabled is not None else []
        if missing:
            skipped[str(path)] = missing
            continue
        try:
            scenarios.append(load_scenario(path))
        except ScenarioFileError as exc:
            errors.append(exc)
    seen: dict[str, str] = {}
    for scenario in scenarios:
        if scenario.name in seen:
            errors.append(
                ScenarioFileError(
                    Path(scenario.source),
                    [f"name: {scenario.name!r} is also used by {seen[scenario.name]}"],
                )
            )
        seen[scenario.name] = scenario.source
    if errors:
        raise ScenarioFilesError(errors)
    return scenarios, skipped
