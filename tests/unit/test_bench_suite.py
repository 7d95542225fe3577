"""The benchmark suite: choosing benchmarks, and a run of some keeping the other sections."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import suite
from bench.suite import Section


def test_select_orders_by_the_suite_and_refuses_unknown_names() -> None:
    assert suite.select([]) == list(suite.NAMES)
    assert suite.select(["concurrency", "overhead", "concurrency"]) == ["overhead", "concurrency"]
    with pytest.raises(ValueError, match="unknown benchmark\\(s\\): nope"):
        suite.select(["wave", "nope"])


def test_a_rerun_replaces_its_section_and_keeps_the_others(tmp_path: Path) -> None:
    results = tmp_path / "RESULTS.md"
    suite.record(Section("concurrency", "2026-01-01 10:00 UTC", ["## C", "", "old"]), results)
    suite.record(Section("overhead", "2026-01-01 10:00 UTC", ["## O", "", "ratio 1.8"]), results)
    assert "- run: 2026-01-01 10:00 UTC" in results.read_text(encoding="utf-8")

    suite.record(Section("concurrency", "2026-01-02 09:30 UTC", ["## C", "", "new"]), results)
    text = results.read_text(encoding="utf-8")
    sections = suite.read(results)
    assert list(sections) == ["overhead", "concurrency"]  # the suite's order
    assert sections["overhead"].lines == ["## O", "", "ratio 1.8"]
    assert sections["concurrency"].lines == ["## C", "", "new"]
    assert "old" not in text
    assert "- runs: 2026-01-01 10:00 UTC (overhead); 2026-01-02 09:30 UTC (concurrency)" in text
    assert text.index("## O") < text.index("## C")
