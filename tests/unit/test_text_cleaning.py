"""Text and data every store accepts: NUL bytes dropped, lone surrogates replaced."""

from __future__ import annotations

from datetime import UTC, datetime

from core.text import REPLACEMENT, clean_data, clean_text


def test_clean_data_is_returned_as_it_is() -> None:
    row = {
        "content": "Résumé ready 👍",
        "usage": [{"model": "m", "input_tokens": 3}],
        "when": datetime(2026, 11, 26, tzinfo=UTC),
        "pair": ("a", 1),
        "nothing": None,
    }
    assert clean_data(row) is row


def test_nul_bytes_and_lone_surrogates_are_cleaned_anywhere_in_the_data() -> None:
    row = {
        "content": "a\x00b",
        "calls": [{"args": {"na\x00me": "x \ud800 y"}}],
        "when": datetime(2026, 11, 26, tzinfo=UTC),
        "emoji": "ok 👍",
    }
    assert clean_data(row) == {
        "content": "ab",
        "calls": [{"args": {"name": f"x {REPLACEMENT} y"}}],
        "when": datetime(2026, 11, 26, tzinfo=UTC),
        "emoji": "ok 👍",
    }


def test_an_escaped_nul_written_out_is_text_not_a_nul() -> None:
    assert clean_data({"note": "written \\u0000 out"}) == {"note": "written \\u0000 out"}
    assert clean_text("\ud83d alone") == f"{REPLACEMENT} alone"
