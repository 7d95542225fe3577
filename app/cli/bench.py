"""`agentloop bench [NAME...]`: run the benchmarks of a source checkout, record bench/RESULTS.md.

The benchmarks live in the repository's top-level `bench/` folder, not in the installed
package, so the command looks for that folder in the current directory and next to the
package's own source (an editable install), and says so when neither has it.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Annotated

import typer
from rich.console import Console

out = Console()
err = Console(stderr=True)


def bench_command(
    names: Annotated[
        list[str] | None,
        typer.Argument(help="Benchmarks to run (default: all); the others' results are kept."),
    ] = None,
    list_only: Annotated[
        bool, typer.Option("--list", help="List the benchmarks and exit.")
    ] = False,
) -> None:
    """Run benchmarks and record their figures, with the machine, in bench/RESULTS.md."""
    suite = _suite()
    if list_only:
        for benchmark in suite.BENCHMARKS:
            out.print(f"{benchmark.name:<12} {benchmark.about}", highlight=False)
        return
    try:
        selected = suite.select(names or [])
    except ValueError as exc:
        err.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
    path = suite.run(selected, say=lambda text: out.print(text, markup=False, highlight=False))
    out.print(f"recorded in {path}", highlight=False)


def checkout_root(candidates: list[Path] | None = None) -> Path | None:
    """Return the first directory with `bench/suite.py`: the package's checkout, or the cwd."""
    for root in candidates or [Path(__file__).resolve().parents[2], Path.cwd()]:
        if (root / "bench" / "suite.py").is_file():
            return root
    return None


def _suite() -> ModuleType:
    root = checkout_root()
    if root is None:
        err.print(
            "[red]error:[/] the benchmarks are not installed with the package: run "
            "`agentloop bench` from a checkout of the agentloop repository (it needs its "
            "bench/ folder)"
        )
        raise typer.Exit(2)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return importlib.import_module("bench.suite")
