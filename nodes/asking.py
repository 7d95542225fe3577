"""Asking a person to decide on proposed changes: one `interrupt()` that knows it asked before.

A run that resumes the question without a decision (Studio's resume of `{}` or `null`, a
re-run from the waiting checkpoint) runs the waiting step again, and LangGraph hands it no
value: the step's `interrupt()` would ask again in silence. So when the step finds that it
asked already (its own interrupt is among its checkpoint's writes), the question comes back
saying what a decision looks like.
"""

from __future__ import annotations

from typing import Any

from langgraph.config import get_config
from langgraph.constants import CONF, CONFIG_KEY_CHECKPOINTER
from langgraph.errors import GraphInterrupt
from langgraph.runtime import Runtime
from langgraph.types import Interrupt, interrupt

from core.run_context import RunContext
from core.state import ConfirmationRequest
from prompts import confirmation

INTERRUPT_CHANNEL = "__interrupt__"
"""The channel LangGraph writes a step's interrupts to."""
NS_SEP = "|"
"""What separates a nested graph's namespace from its parent's (`planner:…|confirm:…`)."""


async def ask(request: ConfirmationRequest, runtime: Runtime[RunContext]) -> Any:
    """Return the decision the run resumed with, or interrupt to ask for one."""
    try:
        return interrupt(request)
    except GraphInterrupt as asking:
        if "error" in request or not await _asked_before(runtime):
            raise
        [raised] = asking.args[0]
        again = {**request, "error": confirmation.no_decision()}
        raise GraphInterrupt((Interrupt(value=again, id=raised.id),)) from asking


async def _asked_before(runtime: Runtime[RunContext]) -> bool:
    """Whether this step already interrupted from this checkpoint (one read of its writes)."""
    info = runtime.execution_info
    saver = get_config()[CONF].get(CONFIG_KEY_CHECKPOINTER)
    if info is None or saver is None or not info.thread_id:
        return False
    # The step's namespace ends with its own task; its writes are its graph's checkpoint's.
    graph_ns = info.checkpoint_ns.rpartition(NS_SEP)[0]
    found = await saver.aget_tuple(
        {
            "configurable": {
                "thread_id": info.thread_id,
                "checkpoint_ns": graph_ns,
                "checkpoint_id": info.checkpoint_id,
            }
        }
    )
    writes = (found.pending_writes or []) if found is not None else []
    return any(task == info.task_id and channel == INTERRUPT_CHANNEL for task, channel, _ in writes)
