"""Fixed replies the graph gives without the model: limits, failures, clarifications."""

from __future__ import annotations

import shlex

NO_REPLY = "NO_REPLY"
"""The model's answer when the message needs none: verify passes it and nothing is posted."""


def tool_call_cap(limit: int) -> str:
    """The turn used its tool-call budget."""
    return (
        f"I stopped because this request needed more than {limit} tool calls in one turn, "
        "so I don't have a complete answer. Ask me to continue, or narrow the request."
    )


def round_cap(limit: int) -> str:
    """The turn used its act↔tools rounds."""
    return (
        f"I stopped after {limit} rounds of lookups without reaching an answer. "
        "Ask me to continue, or narrow the request."
    )


def turn_timeout(seconds: float) -> str:
    """The per-turn watchdog fired."""
    return (
        f"I stopped because this turn took longer than {seconds:g} seconds. "
        "Some lookups may not have finished; ask me to try again."
    )


def graceful_failure(attempts: int, issues: list[str], tried: list[str] | None = None) -> str:
    """Verification failed on every attempt: say so, what was tried and what was wrong."""
    wrong = "; ".join(dict.fromkeys(issues)) or "the answer did not pass my checks"
    looked = f" I looked at: {', '.join(dict.fromkeys(tried))}." if tried else ""
    return (
        f"Sorry, I couldn't put together an answer I'm confident in after {attempts} "
        f"attempts ({wrong}).{looked} Could you rephrase the question or add more detail?"
    )


def run_failed(run_id: str, reason: str, limit: int = 200) -> str:
    """The run failed with an error; the person gets a short reason and the run id."""
    reason = reason.strip().splitlines()[0] if reason.strip() else "unknown error"
    if len(reason) > limit:
        reason = reason[: limit - 1] + "…"
    return f"Sorry, something went wrong and I couldn't finish ({reason}). Run id: {run_id}."


def model_unavailable(reason: str) -> str:
    """The model failed on every retry (rate limit, server error, timeout, unreachable)."""
    return (
        f"Sorry, the model is unavailable right now ({reason}), so I couldn't answer. "
        "Your message is saved in this thread; please try again in a minute."
    )


def storage_unavailable(run_id: str) -> str:
    """The checkpoint database could not be reached: the turn stopped at its last saved step."""
    return (
        "Sorry, I lost the connection to my database, so I stopped this turn at its last "
        f"saved step. Please try again in a moment. Run id: {run_id}."
    )


def carry_on_command(thread_id: str) -> str:
    """The command that carries on a thread's interrupted turn."""
    return f"agentloop resume --thread {shlex.quote(thread_id)} --continue"


def turn_interrupted(thread_id: str, run_id: str, cause: str) -> str:
    """A turn cut off mid-way (the process stopping, its database lost): how to carry it on."""
    return (
        f"This turn was interrupted before it finished: {cause}. What it had done is saved; "
        f"`{carry_on_command(thread_id)}` carries it on from there. Run id: {run_id}."
    )


def not_started(cause: str) -> str:
    """A message that never began its turn (the process stopping, its database lost)."""
    return f"This message was not run: {cause}. Nothing was changed; please send it again."


def clarify_blank() -> str:
    """The message was empty."""
    return "It looks like your message was empty. What can I help you with?"


def injection_refused(patterns: tuple[str, ...]) -> str:
    """The input guard blocked the message (block mode)."""
    kinds = ", ".join(p.replace("_", " ") for p in patterns)
    return (
        "I can't act on that message: it looks like an attempt to change my instructions "
        f"({kinds}). Please send your request again without that part."
    )


def change_timed_out(tool: str, seconds: float) -> str:
    """Content of the ToolMessage for an approved change that did not finish in time."""
    return (
        f"error: {tool} did not finish within {seconds:.1f} s, so whether the change was made "
        "is not known yet. Do not call it again for this; tell the person it may or may not "
        "have happened, and to check before asking for it again."
    )


def tool_not_run(reason: str) -> str:
    """Content of the ToolMessage for a call that was not executed."""
    return f"Not executed: {reason}"


def workspace_not_migrated() -> str:
    """A tool found the workspace database without its tables."""
    return (
        "the workspace database is not set up yet (its tables are missing); tell the person "
        "to run `agentloop db upgrade` (and `agentloop seed --demo` for the demo data)"
    )
