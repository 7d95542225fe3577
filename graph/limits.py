"""Default per-turn limits, shared by `Settings` (deployment defaults) and `Context` (per run)."""

MAX_TOOL_CALLS_PER_TURN = 8
MAX_ROUNDS = 6
TURN_TIMEOUT_S = 90.0
TOOL_TIMEOUT_S = 20.0
VERIFY_MAX_ATTEMPTS = 3
CONFIRMATION_TTL_S = 24 * 3600.0


def recursion_limit(max_rounds: int, verify_max_attempts: int) -> int:
    """Return the LangGraph step budget that fits one turn under these limits.

    A turn is guard + gather, up to `max_rounds` act→(confirm)→tools rounds, one act +
    verify per verification attempt, and finalize. A resumed confirmation that the person
    dismissed by moving on runs confirm and then a whole new turn. The margin covers a
    cap-triggered final act.
    """
    turn = 2 + 3 * max_rounds + 2 * verify_max_attempts + 1
    return 1 + turn + 4
