"""What an answer must be before it is posted: rules with feedback the model can act on.

Slack mrkdwn, no leaked tool-call markup, sources cited when used, the question addressed,
and no claim that a change happened unless a tool made it in this turn. Pure functions of
the text and the turn's evidence; the verify node applies them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from core.state import Source
from core.terms import terms
from prompts.replies import NO_REPLY
from screening.sanitizer import sanitize

USED_SOURCE_WORDS = 3
"""An answer sharing this many distinctive words with a document's excerpt has used it."""

Rule = tuple[str, Callable[[str], bool]]

_TOOL_MARKUP = re.compile(r"</?(tool_call|function_call|tool_use|invoke)\b")
MISSES_QUESTION = "It does not seem to answer the message"
UNBACKED_CLAIM = "It says a change was made"

# Each rule: (feedback the model can act on, predicate that finds the problem).
RULES: list[Rule] = [
    (
        "The answer was empty: write a reply to the user's message.",
        # Only what would be posted counts; markup alone has its own, more precise rule.
        lambda text: not sanitize(text) and _TOOL_MARKUP.search(text) is None,
    ),
    (
        "It uses **double asterisks**; Slack bold is *single asterisks*.",
        lambda text: re.search(r"\*\*[^*\n]+\*\*", text) is not None,
    ),
    (
        "It uses # markdown headings, which Slack does not render; use a *bold* line instead.",
        lambda text: re.search(r"^\s{0,3}#{1,6}\s", text, re.MULTILINE) is not None,
    ),
    (
        "It uses > blockquotes; write the text as a plain line or a bullet instead.",
        lambda text: re.search(r"^\s{0,3}>", text, re.MULTILINE) is not None,
    ),
    (
        "It uses [text](url) links; Slack links are written <url|text>.",
        lambda text: re.search(r"\[[^\]\n]+\]\((https?|mailto):[^)\s]+\)", text) is not None,
    ),
    (
        "It contains tool-call markup; call tools through the tool interface and write the "
        "reply as plain text.",
        lambda text: _TOOL_MARKUP.search(text) is not None,
    ),
]

_CHANGE_VERBS = (
    r"(created|updated|booked|reserved|assigned|unassigned|removed|deleted|saved|stored|"
    r"added|archived|changed|scheduled|applied|renamed|mapped|remembered|filed|logged|"
    r"set up|cancell?ed)"
)
# A state described in the passive ("Garlic Press is mapped to …", "room 12 was booked by
# Ann") is often a read-only fact; only these verbs, of these things, make a passive claim.
_DONE_VERBS = r"(created|booked|reserved|added|removed|deleted|saved|archived|scheduled|filed)"
_CHANGED_THINGS = (
    r"(task|tasks|booking|bookings|reservation|note|notes|assignment|assignments|"
    r"remediation|change|changes)"
)
_MUTATION_CLAIM = re.compile(
    # I've created… / we just booked… / I went ahead and created…
    rf"\b(?:I|we)(?:'ve| have)?\s+(?:just\s+|now\s+|already\s+|successfully\s+|"
    rf"went ahead and\s+)?{_CHANGE_VERBS}\b"
    # …has been created / is now saved / was just booked
    rf"|\b(?:has|have|had)\s+(?:now\s+)?been\s+(?:successfully\s+)?{_CHANGE_VERBS}\b"
    rf"|\b(?:is|are|was|were)\s+(?:now|just|successfully)\s+{_CHANGE_VERBS}\b"
    # the task is created / Task created. / Booking confirmed!
    rf"|\b{_CHANGED_THINGS}\s+(?:is\s+|are\s+)?(?:successfully\s+)?(?:{_DONE_VERBS}|confirmed)\b",
    re.IGNORECASE,
)
_EARLIER = re.compile(
    r"\b(earlier|previously|before|yesterday|last (?:time|week|month)|in (?:an|the) "
    r"(?:earlier|previous) (?:turn|message|conversation)|already exist(?:s|ed))\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Evidence:
    """What an answer may rest on: the question, the gathered sources, this turn's changes."""

    question: str = ""
    sources: Sequence[Source] = ()
    changes: Sequence[str] = field(default_factory=tuple)
    """Mutating tools that ran successfully in this turn."""
    tools_called: int = 0
    failed_changes: Sequence[str] = field(default_factory=tuple)
    """Mutating tools of this turn that did not run: rejected, refused, failed, not confirmed."""
    tool_text: str = ""
    """What this turn's tools returned: words an answer took from them need no source."""


def check(text: str, evidence: Evidence | None = None) -> list[str]:
    """Return the feedback of every rule the text breaks (empty when it passes)."""
    if text.strip() == NO_REPLY:
        return []
    issues = [feedback for feedback, broken in RULES if broken(text)]
    if evidence is None:
        return issues
    claim = unbacked_claim(text, evidence)
    if claim is not None:
        issues.append(claim)
    issues += _uncited(text, evidence)
    if _misses_question(text, evidence):
        issues.append(
            f"{MISSES_QUESTION} (it mentions none of: "
            f"{', '.join(_keywords(evidence.question)[:5])}). Answer what was asked, or ask "
            "a clarifying question."
        )
    return issues


def for_person(issues: Sequence[str]) -> list[str]:
    """The issues as the person is told them: a check's internal reasons in plain words.

    The feedback itself (which words the answer lacked, what the model must not claim) is
    for the model's next attempt; it stays in the audit and the trace.
    """
    told = []
    for issue in issues:
        if issue.startswith(MISSES_QUESTION):
            issue = "my drafts did not answer what you asked"
        elif issue.startswith(UNBACKED_CLAIM):
            issue = "my drafts said a change was made that was not"
        told.append(issue)
    return told


def unbacked_claim(text: str, evidence: Evidence) -> str | None:
    """Return feedback for a claim that a change happened in this turn which no tool made.

    A sentence that places the change in an earlier turn ("I created it earlier") is a
    reference, not a claim. After a change that did not happen (rejected, refused, failed)
    any claim is sent back unless another change of the turn succeeded.
    """
    for sentence in _statements(text):
        claim = _MUTATION_CLAIM.search(sentence)
        if claim is None or _EARLIER.search(sentence):
            continue
        if claim.group(0).casefold() in evidence.question.casefold():
            continue  # the person's own words ("how do we set up a coupon?"), repeated
        if evidence.changes:
            return None
        what = (
            f" ({', '.join(sorted(set(evidence.failed_changes)))} did not run)"
            if evidence.failed_changes
            else ""
        )
        return (
            f'{UNBACKED_CLAIM} ("{claim.group(0).strip()}"), but no tool made a change '
            f"in this turn{what}. Do not claim it happened: say what you found, or what you "
            "can do once the person confirms."
        )
    return None


def _statements(text: str) -> list[str]:
    """The answer's sentences that state something: a question back claims nothing."""
    sentences = re.split(r"(?<=[.!?])\s+|\n+", text)
    return [s for s in sentences if s.strip() and not s.rstrip().endswith("?")]


def _uncited(text: str, evidence: Evidence) -> list[str]:
    lowered = text.casefold()
    answer_words = set(terms(" ".join(_statements(text))))
    # Words the question or this turn's tool results hold are not evidence that a source
    # was used: the workspace's documents and its tools speak of the same things.
    asked = set(terms(evidence.question)) | {
        w.casefold() for w in re.findall(r"\w+", evidence.tool_text)
    }
    issues = []
    for source in evidence.sources:
        if not source.get("cite"):
            continue
        distinctive = {w for w in terms(source["excerpt"]) if len(w) >= 4 or w.isdigit()} - asked
        if len(distinctive & answer_words) < USED_SOURCE_WORDS:
            continue
        reference = source["reference"]
        stem = reference.rsplit("/", 1)[-1].removesuffix(".md")
        if reference.casefold() in lowered or stem.casefold() in lowered:
            continue
        issues.append(
            f"It uses {reference!r} without citing it; add (source: {reference}) where you use it."
        )
    return issues


def _keywords(text: str) -> list[str]:
    return [w for w in terms(text) if len(w) >= 4 and not w.isdigit()]


def _misses_question(text: str, evidence: Evidence) -> bool:
    """Whether the answer shares no word stem with a question (with a "?") of several words.

    Answers with something checkable (numbers, a question back, tool results) pass.
    """
    keywords = _keywords(evidence.question)
    if "?" not in evidence.question or len(keywords) < 2:
        return False  # a statement or a short question: nothing to hold the answer to
    if evidence.tools_called or "?" in text or re.search(r"\d", text):
        return False
    stems = {w[:5] for w in terms(text, limit=None)}  # a long answer's later words count too
    return not any(w[:5] in stems for w in keywords)
