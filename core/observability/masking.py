"""Masks secrets and configured fields in everything a trace carries (Langfuse's `mask=`)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

MASK = "[masked]"
SECRET_FIELDS = frozenset(
    {"password", "passwd", "secret", "api_key", "apikey", "token", "access_token", "authorization"}
)
"""Field names masked whatever the configuration says."""
_SECRET_VALUES = re.compile(
    r"(?:sk-[A-Za-z0-9_\-]{16,}"  # OpenAI-style keys
    r"|(?:pk|sk)-lf-[A-Za-z0-9\-]{8,}"  # Langfuse keys
    r"|xox[abposr]-[A-Za-z0-9\-]{10,}"  # Slack tokens
    r"|Bearer\s+[A-Za-z0-9._\-]{16,})"
)
_SECRET_PAIRS = re.compile(
    r"(?i)\b(" + "|".join(sorted(SECRET_FIELDS, key=len, reverse=True)) + r")([\"']?\s*[=:]\s*)"
    r"(?!\[masked\])(\"[^\"]*\"|'[^']*'|[^\s,;&\"'}]+)"
)
"""`password=hunter2`, `token: abc`, `"api_key": "…"` written in free text."""
_MIN_SECRET_TEXT = 8
_VALUE_MARKERS = ("sk-", "pk-lf-", "xox", "bearer")
"""What every key-shaped secret above contains (casefolded)."""


class Masker:
    """Replaces values of secret or configured fields and secret-looking strings, recursively."""

    def __init__(self, fields: Iterable[str] = ()) -> None:
        self._fields = SECRET_FIELDS | {f.strip().casefold() for f in fields if f.strip()}

    def __call__(self, *, data: Any, **_: Any) -> Any:
        """Return `data` with secrets masked (the signature Langfuse's `mask=` calls)."""
        return self._mask(data, 0)

    def _mask(self, value: Any, depth: int) -> Any:
        if isinstance(value, str):
            return mask_text(value)
        if depth > 20:
            return value
        if isinstance(value, dict):
            return {
                key: MASK
                if isinstance(key, str) and key.casefold() in self._fields
                else self._mask(item, depth + 1)
                for key, item in value.items()
            }
        if isinstance(value, list | tuple):
            return [self._mask(item, depth + 1) for item in value]
        return value


def mask_text(text: str) -> str:
    """Return free text with key-shaped secrets and `name=value` secret pairs masked."""
    if len(text) < _MIN_SECRET_TEXT:
        return text
    # Substring checks first: most text holds no secret's marker, and they cost a
    # fraction of the expressions (which run on every string a trace carries).
    folded = text.casefold()
    if any(marker in folded for marker in _VALUE_MARKERS):
        text = _SECRET_VALUES.sub(MASK, text)
    if any(field in folded for field in SECRET_FIELDS):
        text = _SECRET_PAIRS.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    return text
