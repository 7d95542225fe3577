"""The local model's step thresholds (`CLOSE`, `SURE_OF_CHANGE`), cross-validated on tuning.

Either threshold turns a call of the likeliest tool into a question: `CLOSE` when the two
likeliest tools are nearer than it, `SURE_OF_CHANGE` when the likeliest changes data and holds
less than that share of the tools' probability. `python -m bench.step_thresholds` runs every
tuning ask once with both off (the likeliest tool is always called or proposed), records what
the thresholds read at each ask's first step, and scores any pair of values offline: where
they would ask, the turn is right only for an ask that needs a question (bench/ask_scoring.py);
elsewhere it is the recorded turn's verdict. Over five folds it picks on four the pair that
scores best (ties: the more cautious pair, which asks more) and scores it on the fifth, then
prints each fold's pick and the median of each value: what local_model/decide.py records.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import bench.local_model as bench_asks
import local_model.decide as decide
from bench.ask_sets import Ask
from local_model.values import BACK, bare, fill

FOLDS = 5
SURE = [step / 20 for step in range(0, 17)]
CLOSE = [step / 100 for step in range(0, 21)]


@dataclass(frozen=True)
class Read:
    """What the thresholds read at an ask's first step."""

    p1: float
    p2: float
    mass: float
    changes: bool
    """The likeliest tool changes data."""
    second_offered: bool
    settled: bool
    """A pronoun that refers back fills the change's arguments: it is not asked about."""


@dataclass(frozen=True)
class Row:
    """One tuning ask: whether its recorded turn was right, and what the thresholds read."""

    ask: Ask
    right: bool
    read: Read | None


def right(row: Row, sure: float, close: float) -> bool:
    """Whether the ask would be answered right with these thresholds."""
    read = row.read
    if read is None:
        return row.right
    asks = (read.second_offered and read.p1 - read.p2 < close) or (
        read.changes and read.p1 < sure * read.mass and not read.settled
    )
    return row.ask.clarify if asks else row.right


def _score(rows: Sequence[Row], pair: tuple[float, float]) -> float:
    return statistics.mean(right(row, *pair) for row in rows)


def cross_validated(rows: Sequence[Row]) -> tuple[tuple[float, float], list[Any]]:
    """The median pick of each value, and each fold's (pick, score on its fifth)."""
    pairs = [(sure, close) for sure in SURE for close in CLOSE]
    folds = [rows[i::FOLDS] for i in range(FOLDS)]
    picks = []
    for i, held in enumerate(folds):
        rest = [row for j, fold in enumerate(folds) if j != i for row in fold]
        best = max(pairs, key=lambda pair: (_score(rest, pair), pair))
        picks.append((best, round(_score(held, best), 3)))
    median = tuple(statistics.median(pick[k] for pick, _ in picks) for k in (0, 1))
    return (median[0], median[1]), picks


def record() -> list[Row]:
    """Run the tuning asks with both thresholds off, reading each ask's first step."""
    reads: dict[str, Read] = {}
    current: list[Ask] = []
    ranking, stepping = decide.Decider._rank, decide.Decider.step

    def rank(self: Any, offer: Any, may_reply: bool) -> Any:
        self.last_ranked = ranking(self, offer, may_reply)
        return self.last_ranked

    def step(self: Any, turn: Any, tools: Any, choice: Any, hints: Any) -> Any:
        chosen = stepping(self, turn, tools, choice, hints)
        ranked = getattr(self, "last_ranked", [])
        by_name = {t["function"]["name"]: t for t in tools}
        first = current and turn.ask == current[0].text and not turn.now.results
        if first and choice in (None, "auto") and ranked and ranked[0][0] in by_name:
            (best, p1), (second, p2) = ranked[0], ranked[1] if len(ranked) > 1 else ("", 0.0)
            back = turn.before and {bare(w) for w in turn.ask.split()} & BACK
            parameters = decide._parameters(by_name[best])
            settled = bool(back) and not fill(parameters, turn, hints.mentions).missing
            mass = sum(p for n, p in ranked if n in by_name)
            read = Read(p1, p2, mass, best in hints.changing, second in by_name, settled)
            reads.setdefault(current[0].text, read)
        return chosen

    asking = bench_asks._ask

    async def ask(runner: Any, one: Ask, thread_id: str) -> Any:
        current[:] = [one]
        return await asking(runner, one, thread_id)

    decide.Decider._rank, decide.Decider.step = rank, step  # type: ignore[method-assign]
    decide.SURE_OF_CHANGE, decide.CLOSE = 0.0, -1.0
    bench_asks._ask = ask  # type: ignore[assignment]
    result = bench_asks.run(lambda _: None, sets=("tuning",), busy=False)
    return [Row(t.ask, t.right, reads.get(t.ask.text)) for t in result.turns["tuning"]]


def main() -> None:
    """Record the tuning asks, then print the cross-validated thresholds."""
    rows = record()
    print(f"recorded {len(rows)} asks, {sum(r.read is not None for r in rows)} read")
    for pair in ((0.0, -1.0), (0.5, 0.05)):
        print(f"  sure {pair[0]}, close {pair[1]}: {sum(right(r, *pair) for r in rows)} right")
    (sure, close), picks = cross_validated(rows)
    print(
        f"SURE_OF_CHANGE = {sure}, CLOSE = {close}; folds ((sure, close), held-out score): {picks}"
    )
    print(f"  with them: {sum(right(r, sure, close) for r in rows)} of {len(rows)} right")


if __name__ == "__main__":
    main()
