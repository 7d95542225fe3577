"""The local model's class thresholds, chosen by cross-validation on the tuning asks.

`python -m bench.thresholds` ranks each tuning ask among the learned pairs of classes
(local_model/texts.toml: `asking`, `going_on`) and, over five folds, picks on four the
threshold that labels their asks best and scores it on the fifth. It prints each fold's pick
and score, and their median: the value local_model/decide.py records (`KNOWS`, `GOES_ON`).

Labels: an ask asks to change when a tool it expects changes data, and to know when it is of
the kind `ask_to_know` (the others are left out: nothing is changed for them either way); an
ask goes on from the one before when it is a follow-up, else it is new (small talk left out).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from bench.ask_sets import load
from core.models import build_chat_model
from core.settings import Settings
from local_model.intent import ASKING, GOING_ON
from tools.registry import default_registry

FOLDS = 5
CANDIDATES = [step / 20 for step in range(1, 20)]

Rows = Sequence[tuple[float, bool]]


def _accuracy(threshold: float, rows: Rows) -> float:
    return statistics.mean((p > threshold) == label for p, label in rows)


def cross_validated(rows: Rows) -> tuple[float, list[tuple[float, float]]]:
    """The median of the folds' picks, and each fold's (pick, accuracy on its held-out fifth)."""
    folds = [rows[i::FOLDS] for i in range(FOLDS)]
    picks = []
    for i, held in enumerate(folds):
        rest = [row for j, fold in enumerate(folds) if j != i for row in fold]
        best = max(CANDIDATES, key=lambda t: (_accuracy(t, rest), -abs(t - 0.5)))
        picks.append((best, _accuracy(best, held)))
    return statistics.median(pick for pick, _ in picks), picks


def main() -> None:
    """Print the cross-validated thresholds of both pairs of classes."""
    intents = build_chat_model("local", Settings(_env_file=None)).intents  # type: ignore[attr-defined]
    changing = {tool.name for tool in default_registry().tools() if tool.mutating}
    asks = [a for a in load("tuning") if a.kind != "small_talk"]

    def p(text: str, classes: dict[str, tuple[str, ...]], name: str) -> float:
        return dict(intents.rank(text, classes))[name]

    knowing = [
        (p(a.text, ASKING, "know"), a.kind == "ask_to_know")
        for a in asks
        if a.kind == "ask_to_know" or set(a.tools) & changing
    ]
    going_on = [(p(a.text, GOING_ON, "follow_up"), a.kind == "follow_up") for a in asks]
    for name, rows in (("KNOWS", knowing), ("GOES_ON", going_on)):
        chosen, picks = cross_validated(rows)
        print(f"{name} = {chosen}  folds (pick, held-out accuracy): {picks}")


if __name__ == "__main__":
    main()
