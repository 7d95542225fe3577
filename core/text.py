r"""Text every store accepts: no NUL bytes, no lone surrogates (PostgreSQL refuses both).

Messages arrive from terminals, pipes and HTTP bodies; a NUL byte or an unpaired surrogate
(from invalid UTF-8 decoded with `surrogateescape`, or a JSON `\\ud800`) would make every
later write of that text fail, so it is cleaned once, before anything is stored.
"""

from __future__ import annotations

import json
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def clean_text(text: str) -> str:
    """Return `text` without NUL bytes and with each lone surrogate replaced by U+FFFD."""
    if "\x00" in text:
        text = text.replace("\x00", "")
    # Most text is ASCII, which holds no surrogate: the expression need not run over it.
    return text if text.isascii() else _SURROGATE.sub(REPLACEMENT, text)


def clean_data(value: Any) -> Any:
    """Return `value` (JSON-like data) with every string in it cleaned, keys included.

    Data that needs no cleaning (nearly all of it) is returned as it is, found so in one
    pass of the JSON encoder instead of a walk over every string.
    """
    if _is_clean(value):
        return value
    return _cleaned(value)


def _is_clean(value: Any) -> bool:
    try:
        # The encoder escapes a NUL byte as \u0000 and leaves other characters as they are.
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return False
    return "\\u0000" not in text and (text.isascii() or not _SURROGATE.search(text))


def _cleaned(value: Any) -> Any:
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {_cleaned(k): _cleaned(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_cleaned(item) for item in value]
    return value
