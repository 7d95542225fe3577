"""The README and docs/ stay true: the diagram, the settings, the tools, and every link."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from pydantic import AliasChoices, BaseModel

from core.run_context import ROLES
from core.settings import Settings
from docs import settings_table
from graph.builder import make_graph

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
README_MAX_LINES = 200


def pages() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


# Links and anchors

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", flags=re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", flags=re.DOTALL)
_INLINE_LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)"
)
_REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", flags=re.MULTILINE)
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", flags=re.MULTILINE)
_EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", flags=re.IGNORECASE)


def prose(markdown: str) -> str:
    """The markdown without fenced code blocks and code spans (their brackets are no links)."""
    return _CODE_SPAN.sub("", _FENCE.sub("", markdown))


def links(markdown: str) -> list[str]:
    body = prose(markdown)
    return _INLINE_LINK.findall(body) + _REFERENCE.findall(body)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    heading = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    heading = re.sub(r"<[^>]+>", "", heading)
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for heading in _HEADING.findall(_FENCE.sub("", markdown)):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(page: Path, markdown: str) -> list[str]:
    """Each link of `page` that does not resolve inside the repository, with the reason."""
    problems = []
    for target in links(markdown):
        if _EXTERNAL.match(target):
            continue
        path_part, _, anchor = target.partition("#")
        if not path_part:
            if anchor not in anchors(markdown):
                problems.append(f"{target}: no such heading on this page")
            continue
        resolved = (page.parent / path_part).resolve()
        if not resolved.is_relative_to(ROOT):
            problems.append(f"{target}: outside the repository")
        elif not resolved.exists():
            problems.append(f"{target}: no such file")
        elif anchor and resolved.suffix != ".md":
            problems.append(f"{target}: an anchor into a file that is not markdown")
        elif anchor and anchor not in anchors(text(resolved)):
            problems.append(f"{target}: no heading #{anchor} in {resolved.name}")
    return problems


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_resolves(page: Path) -> None:
    problems = broken_links(page, text(page))
    assert not problems, f"broken links in {page.relative_to(ROOT)}:\n" + "\n".join(problems)


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {
        (README.parent / target.partition("#")[0]).resolve()
        for target in links(text(README))
        if not _EXTERNAL.match(target) and target.partition("#")[0]
    }
    unlinked = [p.name for p in sorted(DOCS.glob("*.md")) if p.resolve() not in linked]
    assert not unlinked, f"docs pages the README does not link: {unlinked}"


def test_the_link_check_finds_what_is_broken() -> None:
    page = DOCS / "example.md"  # a page in docs/, never written: only its links are checked
    markdown = (
        "# A page\n\n## Two words\n\n"
        "[ok](#two-words) [ok](architecture.md#layers-and-packages) [ok](../README.md)\n"
        "[ok](https://example.com/nowhere) `[not a link](missing.md)`\n"
        "```\n[not a link](missing.md)\n```\n"
        "[gone](missing.md) [no anchor](#three-words) [bad](architecture.md#nowhere)\n"
        "[out](../../elsewhere.md)\n"
    )
    assert [p.split(":")[0] for p in broken_links(page, markdown)] == [
        "missing.md",
        "#three-words",
        "architecture.md#nowhere",
        "../../elsewhere.md",
    ]


def test_slugs_follow_githubs_rules() -> None:
    assert slug("`agentloop runs`") == "agentloop-runs"
    assert slug("Verify and the output sanitizer") == "verify-and-the-output-sanitizer"
    assert slug("Not read by `Settings`") == "not-read-by-settings"
    assert anchors("# A\n## A\n") == {"a", "a-1"}


# The README


def test_the_readme_is_at_most_200_lines() -> None:
    lines = len(text(README).splitlines())
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines"


def test_diagram_matches_the_compiled_graph() -> None:
    blocks = re.findall(r"```mermaid\n(.*?)```", text(README), flags=re.DOTALL)
    assert blocks, "README has no mermaid diagram"
    assert blocks[0].strip() == asyncio.run(make_graph()).get_graph().draw_mermaid().strip()


def test_readme_commands_exist_in_the_makefile() -> None:
    makefile = text(ROOT / "Makefile")
    for target in ("chat", "test"):
        assert f"`make {target}`" in text(README)
        assert re.search(rf"^{target}:", makefile, flags=re.MULTILINE)


# docs/configuration.md


def environment_names() -> list[str]:
    """Every variable the settings read: AGENTLOOP_*, aliases, and each section's own prefix."""
    names = []
    for name, field in Settings.model_fields.items():
        alias = field.validation_alias
        section = field.annotation
        if isinstance(section, type) and issubclass(section, BaseModel):
            prefix = alias or f"AGENTLOOP_{name.upper()}"
            names += [f"{prefix}_{sub.upper()}" for sub in section.model_fields]
        elif isinstance(alias, AliasChoices):
            names.append(str(alias.choices[0]))
        elif isinstance(alias, str):
            names.append(alias)
        else:
            names.append(f"AGENTLOOP_{name.upper()}")
    return names


def test_the_settings_table_is_rendered_from_settings() -> None:
    page = text(settings_table.PAGE)
    table = page.split(settings_table.BEGIN, 1)[1].split(settings_table.END, 1)[0]
    assert table.strip() == settings_table.render(), (
        "docs/configuration.md's table is stale: run `python -m docs.settings_table`"
    )


def test_every_setting_is_documented() -> None:
    page = text(settings_table.PAGE)
    for env_name in environment_names():
        assert f"| `{env_name}`" in page, f"{env_name} missing from docs/configuration.md"


# docs/tools.md

_KINDS = {"read-only": "read_only", "mutating": "mutating", "delegate": "delegate"}


def tool_rows() -> dict[str, tuple[str, str, frozenset[str]]]:
    """Tool name → (pack, kind, roles) from the tools table."""
    section = text(DOCS / "tools.md").split("## The tools", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, tuple[str, str, frozenset[str]]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 5 or not cells[1].startswith("`"):
            continue
        pack, names, kind, roles, _ = cells
        allowed = frozenset(ROLES) if roles == "all" else frozenset(roles.split(", "))
        for name in re.findall(r"`(\w+)`", names):
            assert name not in rows, f"{name} is in the tools table twice"
            rows[name] = (pack, _KINDS[kind], allowed)
    return rows


def test_every_tool_is_in_the_tools_table_as_declared() -> None:
    from tools.registry import default_registry

    rows = tool_rows()
    registered = default_registry().tools()
    for tool in registered:
        assert tool.name in rows, f"{tool.name} missing from docs/tools.md"
        assert rows[tool.name] == (tool.pack, tool.kind, tool.roles), tool.name
    assert sorted(rows) == sorted(t.name for t in registered)


# docs/evaluation.md


def test_every_shipped_scenario_is_listed() -> None:
    from app.eval.scenario import SHIPPED
    from tools.pack_loading import enabled

    section = text(DOCS / "evaluation.md").split("## The shipped scenarios", 1)[1]
    listed = set(re.findall(r"`([a-z0-9-]+)`", section))
    folders = [SHIPPED, *(pack.scenarios for pack in enabled(None) if pack.scenarios)]
    shipped = {path.stem for folder in folders for path in folder.glob("*.yaml")}
    assert listed == shipped
