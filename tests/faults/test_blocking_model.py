"""`agentloop ask` ends at its turn's deadline even when the model's call blocks its thread.

The turn gives up the blocking call at the deadline, and the process then exits without
waiting for the call's thread (which goes on, for nobody, until the process is gone). The
run's audit row says how long the turn took. On SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.faults.conftest import Query
from tests.support.cli import agentloop, upgraded

BLOCK_S = 120.0
"""How long the model's call blocks: the process must be long gone by then."""
EXIT_WITHIN_S = 60.0


def test_a_blocking_model_call_does_not_hold_the_turn_or_the_process(
    workspace_url: str, tmp_path: Any, write_script: Callable[..., str], query: Query
) -> None:
    env = upgraded(
        {
            "DATABASE_URL": workspace_url,
            "AGENTLOOP_DATA_DIR": str(tmp_path / "data"),
            "AGENTLOOP_TURN_TIMEOUT_S": "2",
            "AGENTLOOP_MODEL": write_script([{"content": "Too late.", "delay_s": BLOCK_S}]),
        }
    )
    proc = agentloop("ask", "what is new?", "--thread", "t-slow", "--json", env=env,
                     timeout=EXIT_WITHIN_S)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert '"status": "capped"' in proc.stdout
    [(duration_ms,)] = query("select duration_ms from agent_runs")
    # The deadline, and less than the watchdog's grace beyond it.
    assert 2000 <= duration_ms < 7000, duration_ms
