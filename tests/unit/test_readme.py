"""The README stays true: its diagram is the compiled graph and its table lists every setting."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import AliasChoices, BaseModel

from core.settings import Settings
from graph.builder import make_graph

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_diagram_matches_the_compiled_graph() -> None:
    blocks = re.findall(r"```mermaid\n(.*?)```", README, flags=re.DOTALL)
    assert blocks, "README has no mermaid diagram"
    assert blocks[0].strip() == make_graph().get_graph().draw_mermaid().strip()


def environment_names() -> list[str]:
    """Every variable the settings read: AGENTLOOP_*, aliases, and each section's own prefix."""
    names = []
    for name, field in Settings.model_fields.items():
        alias = field.validation_alias
        section = field.annotation
        if isinstance(section, type) and issubclass(section, BaseModel):
            names += [f"{alias}_{sub.upper()}" for sub in section.model_fields]
        elif isinstance(alias, AliasChoices):
            names.append(str(alias.choices[0]))
        else:
            names.append(f"AGENTLOOP_{name.upper()}")
    return names


def test_every_setting_is_documented() -> None:
    for env_name in environment_names():
        assert f"`{env_name}`" in README, f"{env_name} missing from the README's tables"


def test_readme_commands_exist_in_the_makefile() -> None:
    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text(encoding="utf-8")
    for target in ("chat", "test"):
        assert f"`make {target}`" in README
        assert re.search(rf"^{target}:", makefile, flags=re.MULTILINE)


def test_every_tool_is_in_the_tools_table() -> None:
    from tools.registry import default_registry

    for tool in default_registry().tools():
        assert f"`{tool.name}`" in README, f"{tool.name} missing from the README's tools table"
