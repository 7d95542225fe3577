"""The context folder: files ranked by relevance to the message, re-read only when changed."""

from __future__ import annotations

import os
from pathlib import Path

from grounding.context_folder import ContextFolder


def write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_ranks_by_relevance_and_excerpts_the_matching_passage(tmp_path: Path) -> None:
    write(tmp_path, "holidays.md", "# Office holidays\n\nThe office closes for Hanukkah.")
    write(
        tmp_path,
        "clients/coupon-policy.md",
        "# Coupon policy\n\nIntro about the team.\n\nCoupons for Thorinox are capped at 15% "
        "and need a coupon code per brand.\n\nUnrelated closing words.",
    )
    write(tmp_path, "misc.md", "Lunch menu: soup. Coupon mentioned once.")
    write(tmp_path, "notes.txt", "coupon coupon coupon (not markdown)")
    hits = ContextFolder(tmp_path).search("what is the coupon cap for Thorinox?")
    assert [h.reference for h in hits] == ["clients/coupon-policy.md", "misc.md"]
    assert "capped at 15%" in hits[0].excerpt and "Unrelated" not in hits[0].excerpt
    assert hits[0].score > hits[1].score


def test_no_match_no_folder_no_words(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "rooms and rates")
    assert ContextFolder(tmp_path).search("hanukkah dates") == []
    assert ContextFolder(tmp_path / "missing").search("rooms") == []
    assert ContextFolder(tmp_path).search("what is the") == []


def test_changed_files_are_read_again_unchanged_ones_are_not(tmp_path: Path) -> None:
    path = write(tmp_path, "a.md", "rooms and rates")
    other = write(tmp_path, "b.md", "parking rules")
    folder = ContextFolder(tmp_path)
    assert [h.reference for h in folder.search("parking")] == ["b.md"]
    cached = folder._documents[other]
    path.write_text("parking lot behind the hotel", encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert {h.reference for h in folder.search("parking")} == {"a.md", "b.md"}
    assert folder._documents[other] is cached


def test_file_names_and_headings_weigh_more_than_body_words(tmp_path: Path) -> None:
    body = "Notes.\n\nThe refund window is thirty days.\n\nMore notes here."
    write(tmp_path, "a-notes.md", body)
    write(tmp_path, "b-notes.md", "# Refund rules\n\n" + body)
    write(tmp_path, "refund.md", body)
    hits = ContextFolder(tmp_path).search("refund")
    # One body mention each: a heading or a file name with the word ranks first.
    assert {h.reference for h in hits[:2]} == {"b-notes.md", "refund.md"}
    assert hits[2].reference == "a-notes.md"
    assert hits[1].score > 1.5 * hits[2].score


def test_the_index_is_rebuilt_only_when_the_folder_changed(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "rooms and rates")
    gone = write(tmp_path, "b.md", "parking rules")
    folder = ContextFolder(tmp_path)
    assert [h.reference for h in folder.search("parking")] == ["b.md"]
    index = folder._index
    assert [h.reference for h in folder.search("rooms")] == ["a.md"]
    assert folder._index is index
    gone.unlink()
    assert folder.search("parking") == []
    assert folder._index is not index
    write(tmp_path, "c.md", "parking behind the hotel")
    assert [h.reference for h in folder.search("parking")] == ["c.md"]
