"""What the person and the model are told around a proposed change."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def waiting(proposals: Sequence[Any]) -> str:
    """The live status while proposals wait."""
    count = len(proposals)
    return f"waiting for approval of {count} change{'s' if count != 1 else ''}"


def ask(proposals: Sequence[Any]) -> str:
    """The answer of a turn that paused on proposals."""
    lines = [f"• {p['description']}" for p in proposals]
    intro = (
        "I'd like to make this change:"
        if len(proposals) == 1
        else "I'd like to make these changes:"
    )
    return "\n".join([intro, *lines, "Shall I go ahead? (yes / no, or edit the details)"])


def rejected(decided_by: str, reason: str) -> str:
    """ToolMessage content of a rejected call: it did not happen and must not be retried."""
    why = f" Reason: {reason.strip()}" if reason.strip() else ""
    return (
        f"Not executed: {decided_by} rejected this change, so it did not happen.{why} "
        "Tell the person it was not done and do not call this tool again for it "
        "unless they ask anew."
    )


def not_confirmed() -> str:
    """ToolMessage content of a call the person moved on from without confirming."""
    return (
        "Not executed: the person did not confirm this change and moved on, so it did not "
        "happen. Do not assume it was done."
    )


def not_decided() -> str:
    """ToolMessage content of a mutating call that reached the tools node with no decision."""
    return "Not executed: this change needs a person's approval and none was given."


def not_recorded() -> str:
    """ToolMessage content of a mutating call whose decision the confirmation step never saw."""
    return (
        "Not executed: no approval for this change was recorded by the confirmation step "
        "(a decision must come through it), so nothing was changed."
    )


def already_approved() -> str:
    """A decision other than approve, for a change already approved and cut off by a crash."""
    return (
        "This change was already approved and is being carried out, so it can't be rejected "
        "or edited now; nothing else was changed. Approve it to let it finish."
    )


def nothing_pending() -> str:
    """A decision arrived for a thread with nothing waiting."""
    return "There's nothing waiting for your approval in this thread, so nothing was changed."


def nothing_pending_cut_off(carry_on: str) -> str:
    """A decision arrived for a thread whose last turn was cut off with no change approved."""
    return (
        f"{nothing_pending()} Its last turn was interrupted before it finished, with no "
        f"change approved; `{carry_on}` carries it on."
    )


def no_decision() -> str:
    """A run resumed a waiting change without a decision (a resume of `{}` or `null`)."""
    return (
        "That carried no decision, so the change is still waiting and nothing was changed. "
        'A decision looks like {"decision": "approve"}, {"decision": "reject", "reason": "…"} '
        'or {"decision": "edit", "args": {…}}, or a reply such as "yes" or "no".'
    )


def waiting_not_interrupted() -> str:
    """A carry-on asked of a thread that is waiting for a decision, not interrupted."""
    return (
        "This thread is waiting for a decision on a change, not interrupted: approve, reject "
        "or edit it; nothing was run."
    )


def nothing_to_carry_on() -> str:
    """A carry-on asked of a thread whose last turn ended."""
    return "This thread's last turn finished, so there's nothing to carry on; nothing was run."


MEANINGS: dict[str, tuple[str, tuple[str, ...]]] = {
    "unrelated": (
        "Set the change aside: the reply is about something else, changes a detail, or is unclear",
        (
            "thanks!",
            "what's the weather tomorrow?",
            "list the open tasks",
            "who owns the Acme account?",
            "remind me to call Bob",
            "thank you, I'll think about it",
            "I'm not sure",
            "make it Friday instead",
            "actually, the other room",
            "change the title to Update photos",
            "can it be three nights?",
            "sorry, should have said the 5th",
            "oops, make it Monday instead",
            "my mistake, wrong account: Globex",
            "apologies, it should be two nights",
            "sorry, make it two nights",
            "oh sorry, make that Thursday",
        ),
    ),
    "approve": (
        "Go ahead with the change: the reply agrees",
        (
            "yes, go ahead",
            "sounds good",
            "ok do it",
            "that's fine by me",
            "looks right",
            "great, thanks, go ahead",
        ),
    ),
    "reject": (
        "Drop the change: the reply declines",
        (
            "no, don't",
            "cancel that",
            "stop, not now",
            "I'd rather you didn't",
            "nope, leave it",
            "sorry, no",
        ),
    ),
}
"""What a reply to a proposal can mean, each offered to the model as a tool to call, with
replies that mean it. The first (the change is not made; the reply is answered as a new
message) is what an unclear reply means."""


def meaning_tools() -> list[dict[str, Any]]:
    """The reply's possible meanings as argument-less OpenAI tools, one of which is called."""
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": f"{about}, e.g. {' / '.join(replies)}.",
                "parameters": {"type": "object", "properties": {}},
            },
        }
        for name, (about, replies) in MEANINGS.items()
    ]


def meaning_examples() -> dict[str, tuple[str, ...]]:
    """Replies that mean each meaning, for a model that learns the meanings from examples."""
    return {name: replies for name, (_, replies) in MEANINGS.items()}


def classify_system(descriptions: Sequence[str]) -> str:
    """The system message of the reply-classification call: the proposals it answers."""
    listed = "\n".join(f"- {d}" for d in descriptions)
    return (
        "A person was asked to approve a proposed change and replied; their reply is the "
        "next message. Call the tool that says what it means: approve (they clearly agree), "
        "reject (they clearly decline) or unrelated (anything else: a new question, a "
        "different topic, a change to a detail, an unclear answer). If you cannot call a "
        f"tool, answer with that one word.\n\nProposed change(s):\n{listed}"
    )


def proposed_elsewhere() -> str:
    """A decision, in a copy of a thread, on a change proposed in the thread it was copied from."""
    return (
        "This change was proposed in another thread (this one is a copy of it), and a change "
        "runs only in the thread it was proposed in, so it was not made here; nothing was "
        "changed. Decide on it in the original thread, or ask for it again here."
    )


def unrecorded() -> str:
    """A decision on a proposal the workspace has no record of (made up, or from elsewhere)."""
    return (
        "That proposal isn't one I recorded in this thread, so it can't be approved; nothing "
        "was changed. Send a new message to move on."
    )


def not_as_recorded() -> str:
    """A decision on a proposal the thread's state shows differently from its record."""
    return (
        "That proposal was changed after I recorded it, so the decision was not applied and "
        "nothing was changed. Here it is again as recorded."
    )


def workspace_not_migrated() -> str:
    """A change proposed or decided on a workspace database that was never migrated."""
    return (
        "This change can't be proposed or decided yet: the workspace database is not set up "
        "(its tables are missing). Run `agentloop db upgrade`, then ask again; nothing was "
        "changed."
    )
