"""Secrets in free text are masked; text without one comes back as it was."""

from __future__ import annotations

from core.observability.masking import MASK, Masker, mask_text


def test_key_shaped_values_and_secret_pairs_are_masked() -> None:
    text = (
        "key sk-proj-abcdefghijklmnopqrstuvwxyz123456, slack xoxb-1234567890-abcdef, "
        "Authorization: Bearer abcdefghijklmnopqrstuvwx, password=hunter2 "
        '"api_key": "abc123" TOKEN: s3cr3t'
    )
    masked = mask_text(text)
    for secret in ("sk-proj", "xoxb-", "abcdefghijklmnopqrstuvwx", "hunter2", "abc123", "s3cr3t"):
        assert secret not in masked, secret
    assert masked.count(MASK) == 6


def test_text_without_a_secret_is_unchanged() -> None:
    text = "Refresh the Garlic Press images before the holiday sale; ask Omar for the tokens list"
    assert mask_text(text) == text


def test_configured_fields_are_masked_at_any_depth() -> None:
    masker = Masker(["holiday_name"])
    data = {"calls": [{"args": {"holiday_name": "Hanukkah", "year": 2026}}]}
    assert masker(data=data) == {"calls": [{"args": {"holiday_name": MASK, "year": 2026}}]}
