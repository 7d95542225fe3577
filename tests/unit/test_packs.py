"""Packs: the declaration, the choice of `AGENTLOOP_PACKS`, loading, and the import contract."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest
from pydantic import BaseModel

from tools.declaration import ToolContext, declare
from tools.pack_loading import Installed, PackError, chosen, installed, load
from tools.packs import Pack
from tools.registry import registry_of

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = "tests.support.packs.declarations"


class NoArgs(BaseModel):
    """No arguments."""


def found(name: str, target: str, shipped: bool = False) -> Installed:
    return Installed(name, target, "acme-packs 1.0", shipped)


AVAILABLE = {
    "base": found("base", f"{SUPPORT}:BASE", shipped=True),
    "dependent": found("dependent", f"{SUPPORT}:DEPENDENT"),
    "dict_pack": found("dict_pack", f"{SUPPORT}:NOT_A_PACK"),
    "misnamed": found("misnamed", f"{SUPPORT}:MISNAMED"),
    "failing": found("failing", "tests.support.packs.failing:PACK"),
}


def test_unset_enables_the_shipped_packs_empty_enables_none() -> None:
    assert chosen(None, AVAILABLE) == ["base"]
    assert chosen("", AVAILABLE) == []
    assert chosen(" dependent , base,dependent ", AVAILABLE) == ["dependent", "base"]


def test_packs_load_after_those_they_require() -> None:
    packs = load(["dependent", "base"], AVAILABLE)
    assert [p.name for p in packs] == ["base", "dependent"]
    assert {p.origin for p in packs} == {"acme-packs 1.0"}


@pytest.mark.parametrize(
    ("names", "line"),
    [
        (
            ["nope"],
            "no pack named 'nope' is installed (installed: base, dependent, dict_pack, "
            "failing, misnamed)",
        ),
        (["dependent"], "pack 'dependent' needs the 'base' pack enabled too (AGENTLOOP_PACKS)"),
        (
            ["dict_pack"],
            f"pack 'dict_pack' (acme-packs 1.0): {SUPPORT}:NOT_A_PACK is a dict, "
            "not a tools.packs.Pack",
        ),
        (
            ["misnamed"],
            f"pack 'misnamed' (acme-packs 1.0): {SUPPORT}:MISNAMED declares a pack named "
            "'other_name'",
        ),
        (
            ["failing"],
            "pack 'failing' (acme-packs 1.0) failed to load from tests.support.packs.failing:PACK: "
            "ImportError: No module named 'acme_sdk'",
        ),
    ],
)
def test_a_pack_that_cannot_be_used_is_one_line(names: list[str], line: str) -> None:
    with pytest.raises(PackError) as caught:
        load(names, AVAILABLE)
    assert str(caught.value) == line
    assert "\n" not in str(caught.value)


def test_a_declaration_is_checked() -> None:
    with pytest.raises(ValueError, match="must be lowercase"):
        Pack(name="Acme Support", summary="x")
    with pytest.raises(ValueError, match="no migrations folder"):
        Pack(name="acme", summary="x", migrations=ROOT / "nowhere")
    with pytest.raises(ValueError, match=r"reads kinds it names no record of: \['vendor'\]"):
        Pack(name="acme", summary="x", records=("client",), read_as=(("vendor", "Ann Lee"),))
    with pytest.raises(ValueError, match=r"reads records as names no example says: \['Ann Lee'\]"):
        Pack(name="acme", summary="x", records=("client",), read_as=(("client", "Ann Lee"),))

    @declare(pack="elsewhere", kind="read_only")
    async def stray(args: NoArgs, ctx: ToolContext) -> None:  # pragma: no cover
        """A tool declared for another pack."""

    with pytest.raises(ValueError, match="declared for another pack: stray"):
        Pack(name="acme", summary="x", tools=(stray,))


def test_the_registry_holds_the_runtime_tools_and_the_packs() -> None:
    assert registry_of([]).names() == ["create_plan", "load_prior_skill_result"]


def test_shipped_packs_are_declared_as_any_other_and_the_runtime_imports_none() -> None:
    """Every folder of tools/ is a pack declared in the entry-point group (no back door), and
    every runtime module of tools/ is a source of the contract that forbids importing one."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    folders = {p.name for p in (ROOT / "tools").iterdir() if (p / "__init__.py").exists()}
    declared = project["project"]["entry-points"]["agentloop.packs"]
    assert set(declared) == folders
    assert {name for name, pack in installed().items() if pack.shipped} == folders
    [contract] = [
        c
        for c in project["tool"]["importlinter"]["contracts"]
        if c["name"] == "The runtime imports no pack"
    ]
    assert set(contract["forbidden_modules"]) == {f"tools.{name}" for name in folders}
    modules = {f"tools.{p.stem}" for p in (ROOT / "tools").glob("*.py") if p.stem != "__init__"}
    assert modules <= set(contract["source_modules"])


def test_an_asks_file_adds_to_what_the_tools_declare(tmp_path: Path) -> None:
    @declare(pack="acme", kind="read_only", asks=("who runs the Acme account?",))
    async def who_runs(args: NoArgs, ctx: ToolContext) -> None:  # pragma: no cover
        """Who runs an account."""

    asks = tmp_path / "asks.toml"
    asks.write_text('[who_runs]\nasks = ["whose account is Globex?", "who runs the Acme account?"]')
    pack = Pack(name="acme", summary="x", tools=(who_runs,), asks=asks)
    again = dataclasses.replace(pack, origin="acme-packs 1.0")  # as loading copies it

    more = ("whose account is Globex?", "who runs the Acme account?")
    assert pack.tools[0].more_asks == again.tools[0].more_asks == more
    assert pack.tools[0].asks == ("who runs the Acme account?",)  # what preselection reads
    assert registry_of([again]).get("who_runs").examples == more[::-1]

    for text, error in [
        ('[nobody]\nasks = ["x"]', "names no tool of it: 'nobody'"),
        ('[who_runs]\nasks = "x"', r"\[who_runs\] in .* needs asks = a list of texts"),
        ("[who_runs\n", "cannot read its asks file"),
    ]:
        asks.write_text(text)
        with pytest.raises(ValueError, match=error):
            Pack(name="acme", summary="x", tools=(who_runs,), asks=asks)
