"""The local model's sets of asks (bench/asks/): tuning and held-out v10 to v25.

The tuning set may be looked at and tuned to (it holds the retired held-out v1 to v9 too);
the held-out sets only measure, and the bench reports them as totals alone. All are plain YAML so
a reader sees every ask, what answers it, and the facts the answer must hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

import yaml

FOLDER = Path(__file__).with_name("asks")
SetName = Literal[
    "tuning",
    "held_out_v10",
    "held_out_v11",
    "held_out_v12",
    "held_out_v13",
    "held_out_v14",
    "held_out_v15",
    "held_out_v16",
    "held_out_v17",
    "held_out_v18",
    "held_out_v19",
    "held_out_v20",
    "held_out_v21",
    "held_out_v22",
    "held_out_v23",
    "held_out_v24",
    "held_out_v25",
]
HELD_OUT: tuple[SetName, ...] = tuple(n for n in get_args(SetName) if n != "tuning")
"""The sets that only measure: reported as totals alone, and never copied anywhere."""
KINDS = ("tool", "small_talk", "follow_up", "ask_to_know")


@dataclass(frozen=True)
class Ask:
    """One ask, the tools any of which answers it right, and the facts the answer holds."""

    text: str
    kind: str
    tools: tuple[str, ...]
    """Any of these, called first, is right; empty: a reply that calls no tool."""
    facts: tuple[str, ...]
    """The answer (or the waiting proposal) holds one; empty: any real reply."""
    after: tuple[str, ...] = ()
    """Earlier messages of the same thread, run first and not scored."""
    clarify: bool = False
    """The ask lacks what its tool needs: only a question naming `options` is right."""
    options: tuple[str, ...] = ()
    """What the question must name, each as spellings separated by "|" (all of them)."""


def load(name: SetName) -> list[Ask]:
    """Read one set; ValueError names the entry that is malformed."""
    raw: Any = yaml.safe_load((FOLDER / f"{name}.yaml").read_text(encoding="utf-8"))
    asks = []
    for number, entry in enumerate(raw or [], start=1):
        try:
            ask = Ask(
                text=str(entry["ask"]),
                kind=str(entry["kind"]),
                tools=tuple(entry.get("tools") or ()),
                facts=tuple(str(f) for f in entry.get("facts") or ()),
                after=tuple(entry.get("after") or ()),
                clarify=bool(entry.get("clarify", False)),
                options=tuple(str(o) for o in entry.get("options") or ()),
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{name}.yaml entry {number}: {exc}") from exc
        if ask.kind not in KINDS:
            raise ValueError(f"{name}.yaml entry {number}: kind {ask.kind!r} not in {KINDS}")
        if ask.clarify and not (ask.options and ask.tools):
            raise ValueError(f"{name}.yaml entry {number}: a `clarify` ask names its options")
        asks.append(ask)
    return asks
