"""Finding the installed packs and loading the enabled ones (`AGENTLOOP_PACKS`).

Packs are found in the `agentloop.packs` entry-point group of every installed distribution.
Unset, the setting enables the packs agentloop itself ships; a team names its own (and any
of ours it keeps) as a comma-separated list; empty enables none (the runtime's own tools
only). A pack that cannot be loaded, or needs one that is not enabled, is one `PackError`
line naming it and why, before anything starts.
"""

from __future__ import annotations

import importlib.metadata as metadata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cache

from tools.packs import ENTRY_POINTS, Pack

SHIPPED_BY = "agentloop"
"""The distribution whose packs are enabled when `AGENTLOOP_PACKS` is unset."""


class PackError(Exception):
    """A pack cannot be used; the message is one line naming it and why."""


@dataclass(frozen=True)
class Installed:
    """A pack an installed distribution declares (not imported yet)."""

    name: str
    target: str
    """Where its declaration is: `package.module:PACK`."""
    distribution: str
    """The distribution that declares it, with its version."""
    shipped: bool
    """Whether agentloop itself ships it (enabled by default)."""


def installed() -> dict[str, Installed]:
    """Every pack the installed distributions declare, by name.

    Raises:
        PackError: two distributions declare packs of the same name.
    """
    found: dict[str, Installed] = {}
    for entry in metadata.entry_points(group=ENTRY_POINTS):
        dist = entry.dist
        dist_name = dist.metadata["Name"] if dist is not None else "?"
        pack = Installed(
            name=entry.name,
            target=entry.value,
            distribution=f"{dist_name} {dist.version}" if dist is not None else "?",
            shipped=dist_name == SHIPPED_BY,
        )
        other = found.get(entry.name)
        if other is not None and other.target != pack.target:
            raise PackError(
                f"pack {entry.name!r} is declared twice: by {other.distribution} "
                f"({other.target}) and by {pack.distribution} ({pack.target})"
            )
        found[entry.name] = pack
    return found


def chosen(setting: str | None, available: dict[str, Installed]) -> list[str]:
    """The pack names a setting enables: unset → the shipped packs; "" → none."""
    if setting is None:
        return sorted(name for name, pack in available.items() if pack.shipped)
    return list(dict.fromkeys(name.strip() for name in setting.split(",") if name.strip()))


def load(names: Sequence[str], available: dict[str, Installed]) -> list[Pack]:
    """Import the named packs, each after the packs it requires.

    Raises:
        PackError: a name no distribution declares, a declaration that does not load or is
            not a `Pack`, or a pack that requires one not enabled.
    """
    unknown = [name for name in names if name not in available]
    if unknown:
        known = ", ".join(sorted(available)) or "none"
        raise PackError(
            f"no pack named {', '.join(map(repr, unknown))} is installed (installed: {known})"
        )
    packs = {name: declared(available[name]) for name in names}
    for pack in packs.values():
        missing = [needed for needed in pack.requires if needed not in packs]
        if missing:
            raise PackError(
                f"pack {pack.name!r} needs the {', '.join(map(repr, missing))} pack "
                f"enabled too (AGENTLOOP_PACKS)"
            )
    return _dependencies_first(packs)


@cache
def enabled(setting: str | None) -> tuple[Pack, ...]:
    """The packs a setting enables, loaded once per process."""
    available = installed()
    return tuple(load(chosen(setting, available), available))


def declared(found: Installed) -> Pack:
    """Import an installed pack's declaration (`PackError`: one line on why it cannot be)."""
    entry = metadata.EntryPoint(found.name, found.target, ENTRY_POINTS)
    try:
        declared = entry.load()
    except Exception as exc:  # a pack's own import error, whatever it is, is one line here
        raise PackError(
            f"pack {found.name!r} ({found.distribution}) failed to load from {found.target}: "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    if not isinstance(declared, Pack):
        raise PackError(
            f"pack {found.name!r} ({found.distribution}): {found.target} is a "
            f"{type(declared).__name__}, not a tools.packs.Pack"
        )
    if declared.name != found.name:
        raise PackError(
            f"pack {found.name!r} ({found.distribution}): {found.target} declares a pack "
            f"named {declared.name!r}"
        )
    return replace(declared, origin=found.distribution)


def _dependencies_first(packs: dict[str, Pack]) -> list[Pack]:
    ordered: list[Pack] = []
    placing: set[str] = set()

    def place(pack: Pack) -> None:
        if any(done.name == pack.name for done in ordered):
            return
        if pack.name in placing:
            raise PackError(f"packs require each other in a circle, through {pack.name!r}")
        placing.add(pack.name)
        for needed in pack.requires:
            place(packs[needed])
        ordered.append(pack)

    for pack in packs.values():
        place(pack)
    return ordered


def names(packs: Iterable[Pack]) -> str:
    """The packs' names as a person reads them ("agency, calendar" or "none")."""
    return ", ".join(pack.name for pack in packs) or "none"
