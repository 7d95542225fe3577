"""What a person reads in a Slack thread when a turn cannot give its answer."""

from __future__ import annotations

NOTHING_RUNNING = "Nothing is running in this thread right now."
INTERRUPTED = (
    "I had to stop before I finished this (I was restarting). What I had done is saved: "
    "reply `continue` and I'll carry on from there."
)
NOT_STARTED = "I couldn't start on that: I'm restarting. Please send it again in a moment."


def apology(run_id: str | None) -> str:
    """Return what a person sees when a turn failed: short, with the run's id to look it up by."""
    if not run_id:
        return "Sorry, something went wrong before I could start on that; nothing was run."
    return f"Sorry, something went wrong and I couldn't finish that. Run id: `{run_id}`."
