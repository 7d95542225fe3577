"""Default per-turn limits, shared by `Settings` (deployment defaults) and `Context` (per run)."""

MAX_TOOL_CALLS_PER_TURN = 8
MAX_ROUNDS = 6
TURN_TIMEOUT_S = 90.0
TOOL_TIMEOUT_S = 20.0
VERIFY_MAX_ATTEMPTS = 3


def recursion_limit(max_rounds: int, verify_max_attempts: int) -> int:
    """Return the LangGraph step budget that fits one turn under these limits.

    A turn is guard + gather, up to `max_rounds` act→tools rounds, one act + verify per
    verification attempt, and finalize; the margin covers a cap-triggered final act.
    """
    return 2 + 2 * max_rounds + 2 * verify_max_attempts + 1 + 4
