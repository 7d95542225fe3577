"""The table of every setting in docs/configuration.md, rendered from `core.settings.Settings`.

Run `python -m docs.settings_table` from the repository to rewrite the table;
tests/unit/test_docs.py fails when the page's table differs from what this renders.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, BaseModel, SecretStr
from pydantic.fields import FieldInfo

from core.settings import Settings

PAGE = Path(__file__).resolve().parent / "configuration.md"
BEGIN = "<!-- settings table: rendered by `python -m docs.settings_table`; do not edit by hand -->"
END = "<!-- end of settings table -->"

MEANINGS = {
    "OPENAI_API_KEY": "Key for `openai:` models.",
    "OPENAI_BASE_URL": "Any OpenAI-compatible server (vLLM, Ollama, llama.cpp server). "
    "Default: OpenAI's API.",
    "DATABASE_URL": "The workspace database, and the checkpointer when it is PostgreSQL "
    "(`postgresql://…` or `sqlite:///…`). Default: SQLite files under `AGENTLOOP_DATA_DIR`.",
    "LANGFUSE_PUBLIC_KEY": "Langfuse public key: with the secret key, tracing is on.",
    "LANGFUSE_SECRET_KEY": "Langfuse secret key.",
    "LANGFUSE_BASE_URL": "Where spans go (OTLP/HTTP to `/api/public/otel/v1/traces`).",
}
"""Meanings of the fields whose declaration has no description."""

_DEFAULT_CLAUSE = re.compile(r"[.;]\s+[Dd]efault:\s+(?P<default>.+?)\.?$", re.DOTALL)


def rows() -> list[tuple[str, str, str]]:
    """(variables, default, meaning) for every setting, in the order `Settings` declares them."""
    out = []
    for name, field in Settings.model_fields.items():
        section = field.annotation
        if isinstance(section, type) and issubclass(section, BaseModel):
            prefix = str(field.validation_alias or f"AGENTLOOP_{name.upper()}")
            for sub_name, sub in section.model_fields.items():
                out.append(_row(_names(sub_name, sub, f"{prefix}_"), sub))
        else:
            out.append(_row(_names(name, field, "AGENTLOOP_"), field))
    return out


def render() -> str:
    """The markdown table, one row per setting."""
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    for names, default, meaning in rows():
        lines.append(f"| {names} | {default} | {meaning} |")
    return "\n".join(lines)


def _names(name: str, field: FieldInfo, prefix: str) -> list[str]:
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        choices = [str(c) for c in alias.choices]
        if choices[0].isupper():
            return choices
        return [f"{prefix}{c.upper()}" for c in choices]
    if isinstance(alias, str):
        return [alias]
    return [f"{prefix}{name.upper()}"]


def _row(names: list[str], field: FieldInfo) -> tuple[str, str, str]:
    meaning = field.description or MEANINGS[names[0]]
    default = _value(field.get_default(call_default_factory=True))
    clause = _DEFAULT_CLAUSE.search(meaning)
    if clause:
        meaning = meaning[: clause.start()] + "."
        default = clause["default"]
    shown = f"`{names[0]}`" + "".join(f" (or `{n}`)" for n in names[1:])
    return shown, _cell(default), _cell(meaning)


def _value(value: Any) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, SecretStr):
        return "—"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, float) and value.is_integer():
        return f"`{int(value)}`"
    if isinstance(value, Path):
        home = str(Path.home())
        text = str(value)
        return f"`~{text[len(home) :]}`" if text.startswith(home) else f"`{text}`"
    if isinstance(value, frozenset | set):
        return f"`{json.dumps(sorted(value))}`"
    if isinstance(value, dict):
        return f"`{json.dumps(value)}`"
    return f"`{value}`"


def _cell(text: str) -> str:
    """Table-safe text: pipes escaped, and `<…>` outside code kept from reading as HTML."""
    parts = text.replace("|", "\\|").split("`")
    return "`".join(
        part if i % 2 else part.replace("<", "&lt;").replace(">", "&gt;")
        for i, part in enumerate(parts)
    )


def rewrite(page: Path = PAGE) -> None:
    """Replace the table between the page's markers with a fresh rendering."""
    text = page.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    page.write_text(f"{head}{BEGIN}\n{render()}\n{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    rewrite()
