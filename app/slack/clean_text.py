r"""Text from Slack made safe to store: no NUL bytes, no lone surrogates.

JSON lets a body carry `\\u0000` and unpaired `\\ud800`-style escapes. PostgreSQL refuses NUL
in text, and neither database driver can encode a lone surrogate, so a message carrying one
would fail every write it reaches (the event ledger, checkpoints, audit rows). Every string
of an incoming payload is cleaned before any listener reads it.
"""

from __future__ import annotations

import re
from typing import Any

_NUL = re.compile("\x00")
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """Return `text` without NUL characters and with each lone surrogate as U+FFFD."""
    if "\x00" in text:
        text = _NUL.sub("", text)
    return _SURROGATE.sub("\ufffd", text)


def clean_payload(value: Any) -> Any:
    """Return a copy of a JSON-like value with every string (keys too) cleaned."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(str(k)): clean_payload(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_payload(v) for v in value]
    return value
