"""A model's one-time work done before the first turn, not during it.

A model that learns the tools from the examples they declare (`takes_hints`: the embedded
one) reads every example the first time it is offered them: about seven minutes on two cores
on a new machine, kept in its cache folder after that. Offering it everything the graph
can offer (every tool, a message that may go on from the one before, and the meanings of a
reply to a proposal) once does that work; on
a prepared machine it takes well under a second. Other models are left alone.
"""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage

from core.models.hints import ToolHints, bind_offered
from prompts import confirmation
from tools.registry import ToolRegistry


def needs_warm_up(model: BaseChatModel) -> bool:
    """Whether `model` learns from the tools' examples (and so has work to do first)."""
    return bool(getattr(model, "takes_hints", False))


def warm_up(model: BaseChatModel, registry: ToolRegistry) -> None:
    """Offer `model` every tool, a follow-up and every reply meaning once, with their examples."""
    if not needs_warm_up(model):
        return
    every_tool = ToolHints(examples={tool.name: tool.examples for tool in registry.tools()})
    meanings = ToolHints(examples=confirmation.meaning_examples())
    hello = [HumanMessage(content="hello")]
    follow_up = [*hello, AIMessage(content="Hello!"), HumanMessage(content="same question again")]
    bind_offered(model, registry.openai_schemas(), every_tool).invoke(follow_up)
    reply = bind_offered(model, confirmation.meaning_tools(), meanings, tool_choice="required")
    reply.invoke(hello)
