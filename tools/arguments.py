"""The base of every tool's argument model."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, field_validator


class Args(BaseModel):
    """Base of a tool's arguments: PostgreSQL cannot store NUL characters in text."""

    @field_validator("*")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        texts = value if isinstance(value, list) else [value]
        if any(isinstance(text, str) and "\x00" in text for text in texts):
            raise ValueError("must not contain NUL characters")
        return value
