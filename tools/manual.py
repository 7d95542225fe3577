"""How a tool works, in a person's words: the answer to "can you …?" and "how does … work?".

Read from what the tool declares: its description up to its first section ("Returns:"), the
arguments it needs and those it may take, who may ask for it and whether it waits for approval.
"""

from __future__ import annotations

import re
from typing import Any

from tools.declaration import Tool

_SECTION = re.compile(r"^\s*[A-Z][a-z]+( [a-z]+)?:\s*$", re.MULTILINE)
"""A section's header line in a description ("Returns:", "Examples:")."""
_CODE = re.compile(r"`([^`]*)`")


def manual(tool: Tool) -> str:
    """What `tool` does, what it takes and how it runs, a short paragraph at a time."""
    about = _SECTION.split(tool.description.strip(), maxsplit=1)[0]
    paragraphs = [" ".join(p.split()) for p in _CODE.sub(r"\1", about).split("\n\n")]
    schema = tool.args_schema.model_json_schema()
    required = set(schema.get("required") or [])
    fields: dict[str, Any] = schema.get("properties") or {}
    needs = [_said(a, fields[a]) for a in fields if a in required]
    takes = [_said(a, fields[a]) for a in fields if a not in required]
    lines = [p for p in paragraphs if p]
    if tool.kind == "delegate":  # its arguments are the graph's, not a person's
        needs = takes = []
    if needs:
        lines.append(f"It needs: {'; '.join(needs)}.")
    if takes:
        lines.append(f"{'It can also take' if needs else 'It can take'}: {'; '.join(takes)}.")
    if tool.mutating:
        lines.append(
            "It changes data, so I only propose it: it runs once you approve it "
            "(the button, or a yes in the thread), and a no leaves everything as it was."
        )
    roles = sorted(tool.roles)
    if tool.mutating and roles:
        lines.append(f"Who may ask for it: {', '.join(roles)}.")
    return "\n".join(lines)


def _said(name: str, field: dict[str, Any]) -> str:
    """An argument as a person reads it: "due date (YYYY-MM-DD)"."""
    about = str(field.get("description") or "").strip()
    return name.replace("_", " ") + (f" ({about})" if about else "")
