"""Prompts of compaction: the memory flush and the summary of the older history."""

from __future__ import annotations

from prompts.system import section


def flush_system() -> str:
    """System prompt of the memory flush turn."""
    return section("memory_flush")


def flush_request(transcript: str) -> str:
    """The flush turn's message: the transcript about to be dropped."""
    return f"Conversation about to be summarized:\n\n{transcript}"


def summary_system() -> str:
    """System prompt of the summary call."""
    return section("compaction")


def summary_request(previous: str, transcript: str) -> str:
    """The summary call's message: the previous summary and the messages it must absorb."""
    earlier = previous or "(none: this is the first summary of this thread)"
    return f"Previous summary:\n{earlier}\n\nNew messages to fold in:\n\n{transcript}"
