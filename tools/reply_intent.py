"""What a thread reply means for a pending proposal: clear yes/no phrases, decided here.

Only short, unambiguous replies are decided without the model ("yes, create it", "go
ahead", "no, cancel"); anything else ("yes but change the title", a new question) is left
for the model to classify.
"""

from __future__ import annotations

import re
from typing import Literal

Intent = Literal["approve", "reject"]

_YES = (
    r"(yes|yeah|yep|yup|y|sure|ok|okay|confirm(ed)?|approve(d)?|go ahead|go for it|do it|"
    r"proceed|please do|sounds good|lgtm|ship it|create it|make it|send it|book it|"
    r"yes please|ok do it|absolutely|correct|that'?s right|👍|✅)"
)
_NO = (
    r"(no|nope|nah|n|cancel( it| that)?|stop|don'?t|do not|reject(ed)?|never ?mind|"
    r"abort|forget it|no thanks|not now|hold off|don'?t do it|❌|👎)"
)
_FILLER = r"(please|thanks|thank you|then|now|that|this|it|for me)"
_TAIL = rf"([\s,.!]+({_YES}|{_NO}|{_FILLER}))*"
_CLEAR_YES = re.compile(rf"^\s*{_YES}(?P<tail>{_TAIL})[\s.!]*$", re.IGNORECASE)
_CLEAR_NO = re.compile(rf"^\s*{_NO}(?P<tail>{_TAIL})[\s.!]*$", re.IGNORECASE)
_NEGATION = re.compile(rf"\b({_NO})\b", re.IGNORECASE)
_AFFIRMATION = re.compile(rf"\b({_YES})\b", re.IGNORECASE)


def clear_intent(reply: str) -> Intent | None:
    """Return approve/reject for a clear short reply, None when the model must decide."""
    text = reply.strip()
    if not text or len(text) > 60:
        return None
    if (yes := _CLEAR_YES.match(text)) and not _NEGATION.search(yes["tail"]):
        return "approve"
    if (no := _CLEAR_NO.match(text)) and not _AFFIRMATION.search(no["tail"]):
        return "reject"
    return None
