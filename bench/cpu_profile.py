"""Where a piece of work spends its CPU time, by package (cProfile on the CPU clock).

Only the thread that enables the profile is profiled (the event loop's); each function's
own time goes to the package its file belongs to: an installed distribution, a folder of
this repository, or the standard library. Time in C functions stays with the C function
(`builtins`), not with the Python code that called it.
"""

from __future__ import annotations

import cProfile
import pstats
import sysconfig
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_REPO = Path(__file__).resolve().parents[1]
_STDLIB = Path(sysconfig.get_paths()["stdlib"]).resolve()


@contextmanager
def profiled() -> Iterator[cProfile.Profile]:
    """Profile the block on the process's CPU clock."""
    profile = cProfile.Profile(time.process_time)
    profile.enable()
    try:
        yield profile
    finally:
        profile.disable()


def by_package(profile: cProfile.Profile) -> list[tuple[str, float]]:
    """Return (package, CPU seconds) pairs, the largest first."""
    totals: dict[str, float] = defaultdict(float)
    stats = pstats.Stats(profile)
    for (filename, _line, _name), row in stats.stats.items():  # type: ignore[attr-defined]
        totals[_package(filename)] += row[2]  # the function's own time
    return sorted(totals.items(), key=lambda item: -item[1])


def _package(filename: str) -> str:
    if filename == "~" or not filename:
        return "builtins (C)"
    path = Path(filename)
    parts = path.parts
    if "site-packages" in parts:
        return parts[parts.index("site-packages") + 1].removesuffix(".py")
    resolved = path.resolve()
    if resolved.is_relative_to(_REPO):
        return f"agentloop {resolved.relative_to(_REPO).parts[0]}/"
    if resolved.is_relative_to(_STDLIB):
        return f"{resolved.relative_to(_STDLIB).parts[0].removesuffix('.py')} (stdlib)"
    return path.name
