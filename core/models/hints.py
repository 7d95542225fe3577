"""What the app knows about one model call beyond its messages and tool schemas.

A provider that can use it says so (`takes_hints`); the others are bound as usual. The
embedded local model classifies a message by the tools' example asks and fills arguments
from the records the message names; a hosted model reads the same in its prompt.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage
from langchain_core.runnables import Runnable

from core.models.shows import Shows


def no_times(text: str) -> Sequence[tuple[int, int]]:
    """Where a text says a time without a date reader enabled: nowhere."""
    return ()


@dataclass(frozen=True)
class ToolHints:
    """The offered tools' declarations and the message's named records, for one call."""

    examples: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """Requests each offered tool answers, in a person's words."""
    changing: frozenset[str] = frozenset()
    """The offered tools that change data (they wait for approval)."""
    readers: frozenset[str] = frozenset()
    """The offered tools that turn a time said in words into dates."""
    abilities: Sequence[str] = ()
    """What the asker may ask for, a line per tool."""
    mentions: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """The workspace records the message names, by kind (the argument name that takes one)."""
    read_as: Mapping[str, str] = field(default_factory=dict)
    """The name a record of a kind reads as when a message is classified (else its kind)."""
    stated: Sequence[Mapping[str, str]] = ()
    """The stays the message writes out, already read: each one's `check_in` and `check_out`."""
    shows: Mapping[str, Shows] = field(default_factory=dict)
    """What a person reads in each offered tool's result, for the tools that declare it."""
    manuals: Mapping[str, str] = field(default_factory=dict)
    """How each offered tool works, in a person's words: what it does, takes and waits for."""
    times: Callable[[str], Sequence[tuple[int, int]]] = no_times
    """Where a text says a time, as the enabled date reader finds it: (start, end) of each
    phrase. Without a date reader, no text says one."""


def bind_offered(
    model: BaseChatModel, tools: Sequence[dict[str, Any]], hints: ToolHints, **options: Any
) -> Runnable[LanguageModelInput, AIMessage]:
    """`model` with `tools` and `options` (`tool_choice`) bound, and `hints` if it takes them."""
    if getattr(model, "takes_hints", False):
        return model.bind_tools(tools, hints=hints, **options)
    return model.bind_tools(tools, **options)
