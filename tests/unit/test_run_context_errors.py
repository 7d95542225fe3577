"""A bad run context value is one line naming the field and why (Studio, the SDK, any caller).

LangGraph builds the graph's context from a run's `context` with `RunContext(**context)`;
the deployment's own fields are filled from the caller's model, so one bad value used to
come back as "17 validation errors for RunContext".
"""

from __future__ import annotations

import pytest

from core.run_context import InvalidRunContext, RunContext


@pytest.mark.parametrize(
    ("context", "line"),
    [
        (
            {"user_role": "boss"},
            "invalid run context: user_role: input should be 'viewer', 'member' or 'admin' "
            "(got 'boss')",
        ),
        (
            {"user_id": ""},
            "invalid run context: user_id: string should have at least 1 character (got '')",
        ),
        (
            {"today": "someday", "context_type": "gossip"},
            "invalid run context: context_type: input should be 'general', 'client', 'task', "
            "'task_create' or 'audit' (got 'gossip'); today: input should be a valid date or "
            "datetime, input is too short (got 'someday')",
        ),
    ],
)
def test_a_bad_value_is_one_line_naming_its_field(context: dict[str, str], line: str) -> None:
    with pytest.raises(InvalidRunContext) as raised:
        RunContext(**context)
    assert str(raised.value) == line
    assert "\n" not in str(raised.value)


def test_good_values_build_the_context_with_the_deployments_own() -> None:
    context = RunContext(user_id="U0GRACE", user_role="admin", today="2026-11-22")
    assert (context.user_id, context.user_role, context.today.isoformat()) == (
        "U0GRACE",
        "admin",
        "2026-11-22",
    )
    assert context.turn_timeout_s > 0 and context.max_rounds > 0
