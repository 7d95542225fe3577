"""Prompt-injection screening of incoming messages: six patterns, four modes (off/log/warn/block).

It is detection, not a filter: in every mode but `block` the message goes through unchanged.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from core.settings import GuardMode

logger = logging.getLogger(__name__)

PATTERNS: dict[str, re.Pattern[str]] = {
    "ignore_instructions": re.compile(
        r"\b(ignore|disregard|forget|skip)\s+(all\s+|any\s+)?(of\s+)?(the\s+|your\s+)?"
        r"(previous|prior|above|earlier|preceding|original)\s+"
        r"(instructions?|rules|prompts?|directions|guidelines)",
        re.IGNORECASE,
    ),
    "role_override": re.compile(
        r"\byou\s+are\s+(now|no\s+longer)\b|\bfrom\s+now\s+on,?\s+you\s+(are|will\s+be)\b"
        r"|\bpretend\s+(to\s+be|you\s+are)\b|\bact\s+as\s+(if\s+you\s+were\s+)?(a|an)\s+"
        r"(different|new|unrestricted)\b",
        re.IGNORECASE,
    ),
    "system_tags": re.compile(
        r"<\|im_start\|>\s*system|<\|system\|>|\[/?SYSTEM\]|<\s*/?\s*system\s*>|<<\s*SYS\s*>>"
        r"|\[/?INST\]",
        re.IGNORECASE,
    ),
    "instruction_injection": re.compile(
        r"\b(new|updated|revised)\s+instructions?\s*:|\boverride\s*:|\bsystem\s+prompt\s*:",
        re.IGNORECASE,
    ),
    "null_bytes": re.compile("\x00"),
    "delimiter_escape": re.compile(
        r"\bend\s+of\s+(the\s+)?system(\s+(prompt|message|instructions))?\b"
        r"|<\s*/\s*(instructions|context|prompt|user_input)\s*>",
        re.IGNORECASE,
    ),
}


@dataclass(frozen=True)
class Screening:
    """What the guard found in one message and whether the message may go on."""

    patterns: tuple[str, ...]
    blocked: bool


def scan(text: str) -> tuple[str, ...]:
    """Return the names of the injection patterns found in `text`, in table order."""
    return tuple(name for name, pattern in PATTERNS.items() if pattern.search(text))


def blocks(text: str, mode: GuardMode) -> bool:
    """Whether `screen` would block `text` under `mode` (without logging what it found)."""
    return mode == "block" and bool(scan(text))


def screen(text: str, mode: GuardMode) -> Screening:
    """Scan `text` under `mode`: log what was found and say whether to block the message."""
    if mode == "off":
        return Screening((), blocked=False)
    found = scan(text)
    if not found:
        return Screening((), blocked=False)
    level = logging.INFO if mode == "log" else logging.WARNING
    logger.log(level, "security.injection_detected patterns=%s mode=%s", ",".join(found), mode)
    return Screening(found, blocked=mode == "block")
