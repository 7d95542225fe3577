"""The LangGraph step budget of a turn (the limits themselves are `Settings` fields)."""


def recursion_limit(max_rounds: int, verify_max_attempts: int) -> int:
    """Return the LangGraph step budget that fits one turn under these limits.

    A turn is guard + gather, up to `max_rounds` act→(propose→confirm)→tools rounds, one
    act + verify per verification attempt, and finalize. A resumed confirmation that the
    person dismissed by moving on runs confirm and then a whole new turn. The margin covers
    a cap-triggered final act.
    """
    turn = 2 + 4 * max_rounds + 2 * verify_max_attempts + 1
    return 1 + turn + 4
