"""Prompt of the optional LLM judge that reviews an answer after the rule checks."""

from __future__ import annotations

from prompts.system import section


def system() -> str:
    """System prompt of the judge."""
    return section("judge")


def request(question: str, evidence: str, draft: str) -> str:
    """The judge's message: the question, what the answer may rest on, and the draft."""
    return (
        f"Message:\n{question}\n\nTool results and sources:\n{evidence or '(none)'}\n\n"
        f"Draft reply:\n{draft}"
    )
