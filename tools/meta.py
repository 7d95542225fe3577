"""The meta pack: tools about the conversation itself (rehydrating stored results)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from tools import retention
from tools.declaration import Shows, ToolContext, declare


class LoadPriorSkillResultArgs(BaseModel):
    """Arguments of load_prior_skill_result."""

    result_id: int = Field(description="The result_id a summarized tool result gave.", ge=1)


@declare(
    pack="meta",
    kind="read_only",
    summarize_large_results=False,
    provides=["result_loader"],
    asks=(
        "show the full result of that earlier lookup",
        "load the whole earlier tool output again",
        "what did the earlier call return in full",
    ),
    shows=Shows(fields=()),
)
async def load_prior_skill_result(
    args: LoadPriorSkillResultArgs, ctx: ToolContext
) -> dict[str, Any]:
    """Load the full data of an earlier tool result that was shown only as a summary.

    Large tool results appear in the conversation as {"summary", "result_id", "note"}; call
    this with that result_id when the person asks about details the summary leaves out.

    Returns:
        {"result_id", "tool", "result": <the complete original result>}.

    Example:
        {"result_id": 42}
    """
    return await retention.load(ctx.database(), args.result_id, ctx.thread_id)


TOOLS = [load_prior_skill_result]
