"""`agentloop` with one part broken on purpose: `python -m tests.support.broken_cli PART ARGS…`.

PART is `render` (printing the answer raises a RuntimeError, after the run ended) or
`interrupt` (the run is interrupted, as by Ctrl-C, after its graph ran).
"""

from __future__ import annotations

import sys
from typing import Any, NoReturn

from app.cli import single_turn
from app.cli.main import main
from graph.driver import Driver


def _render_breaks(*_: Any) -> NoReturn:
    raise RuntimeError("the renderer broke")


async def _interrupted(*_: Any) -> NoReturn:
    raise KeyboardInterrupt


if __name__ == "__main__":
    part = sys.argv.pop(1)
    if part == "render":
        single_turn.print_result = _render_breaks  # type: ignore[assignment]
    elif part == "interrupt":
        Driver._result = _interrupted  # type: ignore[method-assign]
    else:
        raise SystemExit(f"unknown part {part!r}")
    main()
