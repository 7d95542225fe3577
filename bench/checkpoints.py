"""Postgres checkpoints over a 200-turn thread: time per step, storage per turn.

One thread on a PostgreSQL database created for the run (dropped after it); each turn is
one tool call returning ~500 characters, then an answer (scripted model, no latency). Four
configurations: checkpoint retention `all` (LangGraph's default: every step kept) or
`latest` (the default here: pruned every few turns), with the history compaction the agent
always does (> 50 messages → a scripted summary) or with compaction switched off in the
benchmark process, so that all 800 messages stay in the state.

Measured: every `aput` / `aput_writes` / `aprune` call of the saver (wall time), and after
each turn the thread's stored payload bytes (`pg_column_size` of the checkpoint, metadata
and blob columns of its rows: what Postgres stores, compressed, without row headers).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

import psycopg
from pydantic import BaseModel

from bench.scratch_db import scratch_postgres
from checkpoints import retention
from core.models import ModelResolver
from core.models.scripted import ScriptedChatModel, ScriptedTurn
from core.settings import CheckpointRetention, Settings
from graph.runner import Runner, TurnRequest
from history import compaction
from tools.declaration import ToolContext, declare
from tools.registry import ToolRegistry

TURNS = 200
RESULT_CHARS = 500
SAMPLES = (1, 50, 100, 150, 200)
WINDOW = 50
"""Turns compared at each end of the thread by the linearity check."""
LINEAR_MAX = 1.5
"""Largest ratio of bytes added per turn (last 50 turns / first 50) that counts as linear."""
THREAD = "bench-long"

STORED_SQL = """
SELECT
  (SELECT coalesce(sum(pg_column_size(checkpoint) + pg_column_size(metadata)), 0)
     FROM checkpoints WHERE thread_id = %(t)s)
  + (SELECT coalesce(sum(pg_column_size(blob)), 0) FROM checkpoint_blobs WHERE thread_id = %(t)s)
  + (SELECT coalesce(sum(pg_column_size(blob)), 0) FROM checkpoint_writes WHERE thread_id = %(t)s)
  AS stored,
  (SELECT count(*) FROM checkpoints WHERE thread_id = %(t)s) AS checkpoints
"""
DISK_SQL = """
SELECT pg_total_relation_size('checkpoints') + pg_total_relation_size('checkpoint_blobs')
     + pg_total_relation_size('checkpoint_writes')
"""


class RecordArgs(BaseModel):
    """Arguments of the record tool."""

    n: int


VOCABULARY = (
    "account action asin audit brand budget campaign catalog channel checklist client coupon "
    "deadline destination draft export feed forecast image inventory invoice keyword launch "
    "listing mapping margin marketplace meeting note order owner price product promo report "
    "retail review sales schedule search season seller shipment sku sop spend status stock "
    "store supplier target task team thread title update vendor warehouse weekly"
)
WORDS = VOCABULARY.split()


@declare(pack="bench", kind="read_only")
async def fetch_record(args: RecordArgs, ctx: ToolContext) -> dict[str, object]:
    """Return a record of about 500 characters of varied words (compresses like prose)."""
    rng = random.Random(args.n)
    words: list[str] = []
    while sum(len(w) + 1 for w in words) < RESULT_CHARS:
        words.append(rng.choice(WORDS))
    return {"n": args.n, "text": " ".join(words)}


@dataclass(frozen=True)
class Config:
    """One configuration of the thread."""

    retention: CheckpointRetention
    compaction: bool

    @property
    def label(self) -> str:
        """How the table names it."""
        kept = "latest" if self.retention == "latest" else "all (LangGraph default)"
        return f"{kept}, compaction {'on' if self.compaction else 'off'}"


CONFIGS = (
    Config("all", compaction=False),
    Config("all", compaction=True),
    Config("latest", compaction=False),
    Config("latest", compaction=True),
)


@dataclass
class ThreadRun:
    """Measurements of one configuration over the whole thread."""

    config: Config
    stored: list[int] = field(default_factory=list)
    """Stored payload bytes of the thread after each turn."""
    pruned: list[bool] = field(default_factory=list)
    """Whether the run of each turn pruned the thread."""
    puts_ms: list[list[float]] = field(default_factory=list)
    """Wall time of each `aput` (one per step), by turn."""
    writes_ms: list[float] = field(default_factory=list)
    prune_ms: list[float] = field(default_factory=list)
    turn_ms: list[float] = field(default_factory=list)
    checkpoints: int = 0
    """Checkpoint rows of the thread at the end."""
    disk_bytes: int = 0
    """The three tables on disk at the end (indexes, TOAST and not yet vacuumed rows)."""
    compacted_bytes: int = 0
    """The same after `VACUUM FULL`: what the rows kept need on disk."""

    def kept(self, turn: int) -> int:
        """Bytes the thread keeps for good after `turn` (1-based): as of its last prune.

        Between prunes the thread also holds the steps since, which the next prune drops;
        with retention `all` everything is kept.
        """
        if self.config.retention == "all":
            return self.stored[turn - 1]
        last = max((t for t in range(1, turn + 1) if self.pruned[t - 1]), default=turn)
        return self.stored[last - 1]

    def slope(self, first: int, last: int) -> float:
        """Bytes kept per turn over turns `first`..`last` (least squares over the turns
        that end in the state kept: every turn with retention `all`, the pruning ones with
        `latest`)."""
        turns = [
            t
            for t in range(first, last + 1)
            if self.config.retention == "all" or self.pruned[t - 1]
        ]
        return statistics.linear_regression(turns, [self.kept(t) for t in turns]).slope

    @property
    def growth(self) -> float:
        """Slope over the last 50 turns divided by the slope over the first 50."""
        turns = len(self.stored)
        return self.slope(turns - WINDOW + 1, turns) / self.slope(1, WINDOW)

    def put_ms(self, turns: slice) -> list[float]:
        """Every `aput` time of the turns in `turns` (0-based slice)."""
        return [ms for puts in self.puts_ms[turns] for ms in puts]


@dataclass
class CheckpointResult:
    """All configurations."""

    turns: int
    runs: list[ThreadRun]


class _SaverTimer:
    """Wraps a saver's write methods to record how long each call takes."""

    def __init__(self, saver: Any) -> None:
        self.puts: list[float] = []
        self.writes: list[float] = []
        self.prunes: list[float] = []
        for name, sink in (("aput", self.puts), ("aput_writes", self.writes)):
            setattr(saver, name, self._timed(getattr(saver, name), sink))
        saver.aprune = self._timed(saver.aprune, self.prunes)

    @staticmethod
    def _timed(call: Callable[..., Awaitable[Any]], sink: list[float]) -> Callable[..., Any]:
        async def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return await call(*args, **kwargs)
            finally:
                sink.append((time.perf_counter() - start) * 1000)

        return timed

    def take(self) -> tuple[list[float], list[float], list[float]]:
        """Return and clear what was recorded since the last call."""
        taken = (list(self.puts), list(self.writes), list(self.prunes))
        for sink in (self.puts, self.writes, self.prunes):
            sink.clear()
        return taken


@contextmanager
def _compaction(enabled: bool) -> Iterator[None]:
    if enabled:
        yield
        return
    with mock.patch.object(compaction, "needs_compaction", lambda *_: False):
        yield


async def _thread(config: Config, url: str, turns: int) -> ThreadRun:
    run = ThreadRun(config)
    settings = Settings(
        _env_file=None,
        database_url=url,
        checkpointer="postgres",
        checkpoint_retention=config.retention,
        model="scripted:checkpoints",
        compaction_model="scripted:compactor",
    )
    models = ModelResolver(settings)
    script = [
        turn
        for n in range(turns)
        for turn in (
            {"tool_calls": [{"name": "fetch_record", "args": {"n": n}}]},
            {"content": f"Record {n} is ready."},
        )
    ]
    summaries = [{"content": f"Summary {k}: records were fetched."} for k in range(turns)]
    # The resolver's cache is the model seam.
    models._models["scripted:checkpoints"] = ScriptedChatModel(
        turns=[ScriptedTurn.model_validate(t) for t in script]
    )
    models._models["scripted:compactor"] = ScriptedChatModel(
        turns=[ScriptedTurn.model_validate(t) for t in summaries]
    )
    async with (
        Runner.open(settings, ToolRegistry([fetch_record]), models) as runner,
        await psycopg.AsyncConnection.connect(url, autocommit=True) as conn,
    ):
        timer = _SaverTimer(runner.graph.checkpointer)
        with _compaction(config.compaction):
            for n in range(turns):
                request = TurnRequest(thread_id=THREAD, user_id="bench", message=f"Record {n}?")
                start = time.perf_counter()
                result = await runner.run_turn(request)
                run.turn_ms.append((time.perf_counter() - start) * 1000)
                assert result.status == "completed", result.text
                puts, writes, prunes = timer.take()
                run.puts_ms.append(puts)
                run.writes_ms.extend(writes)
                run.prune_ms.extend(prunes)
                run.pruned.append(bool(prunes))
                row = await (await conn.execute(STORED_SQL, {"t": THREAD})).fetchone()
                assert row is not None
                run.stored.append(row[0])
                run.checkpoints = row[1]
        run.disk_bytes = await _disk_bytes(conn)
        await conn.execute("VACUUM FULL checkpoints, checkpoint_blobs, checkpoint_writes")
        run.compacted_bytes = await _disk_bytes(conn)
    return run


async def _disk_bytes(conn: psycopg.AsyncConnection[Any]) -> int:
    row = await (await conn.execute(DISK_SQL)).fetchone()
    return int(row[0]) if row else 0


async def _measure(turns: int) -> CheckpointResult:
    runs = []
    for config in CONFIGS:
        # A database per configuration, so the on-disk size is the configuration's own.
        async with scratch_postgres("checkpoints") as url:
            runs.append(await _thread(config, url, turns))
    return CheckpointResult(turns=turns, runs=runs)


def run(turns: int = TURNS) -> CheckpointResult:
    """Run the thread in every configuration."""
    return asyncio.run(_measure(turns))


def _kb(n: float) -> str:
    return f"{n / 1000:,.1f}"


def _bounded(run: ThreadRun) -> bool:
    """Whether the kept bytes stopped growing: no bytes kept per turn over the last turns."""
    turns = len(run.stored)
    return run.slope(turns - WINDOW + 1, turns) <= 0


def _growth(run: ThreadRun) -> str:
    if _bounded(run):
        return "none (bounded)"
    verdict = "linear" if run.growth <= LINEAR_MAX else "**superlinear**"
    return f"{run.growth:.2f}× ({verdict})"


def render(result: CheckpointResult) -> list[str]:
    """Return the RESULTS.md section."""
    samples = [t for t in SAMPLES if t <= result.turns]
    head = " | ".join(str(t) for t in samples)
    lines = [
        f"## Postgres checkpoints: one thread of {result.turns} turns",
        "",
        f"A PostgreSQL database created for the run; one thread, each turn one tool call "
        f"returning ~{RESULT_CHARS} characters of varied words, then an answer (scripted "
        "model, no latency): 4 messages a turn. Retention `all` is LangGraph's default "
        "(every step's checkpoint kept); `latest`, this project's default, prunes the thread "
        f"after a run once it holds more than {retention.PRUNE_ABOVE} checkpoints, to the "
        "latest checkpoint of each namespace with its pending writes. The agent compacts the "
        "history past 50 messages (a scripted summary); *compaction off* disables that in "
        f"the benchmark process, so all {4 * result.turns} messages stay in the state. "
        "Storage is the thread's stored payload (`pg_column_size` of the checkpoint, "
        "metadata and blob columns: compressed, as stored); *kept* is what stays after the "
        "last prune (everything with `all`), *peak* the most the thread held between "
        f"prunes. Target: storage grows at most linearly with turns — the kept bytes per turn "
        f"(least-squares slope) over the last {WINDOW} turns at most {LINEAR_MAX}× the slope "
        f"over the first {WINDOW}.",
        "",
        f"| retention, compaction | kept kB after turn {head} | peak kB | kept per turn, "
        f"first {WINDOW} → last {WINDOW} turns (kB) | growth |",
        "|---|" + "---|" * (len(samples) + 3),
    ]
    for r in result.runs:
        turns = len(r.stored)
        kept = " | ".join(_kb(r.kept(t)) for t in samples)
        first, last = r.slope(1, WINDOW), r.slope(turns - WINDOW + 1, turns)
        lines.append(
            f"| {r.config.label} | {kept} | {_kb(max(r.stored))} | {_kb(first)} → {_kb(last)} "
            f"| {_growth(r)} |"
        )
    lines += [
        "",
        "Checkpoint time per step: each `aput` (one per super-step; a turn saves each before "
        'the next step starts, `durability="sync"`), each `aput_writes`, and each prune; '
        "mean (p95) ms.",
        "",
        "| retention, compaction | steps per turn | `aput` turns 1–10 | `aput` last 10 turns "
        "| `aput_writes` | prune (every … turns) | turn (mean) | rows at the end "
        "| tables on disk (after `VACUUM FULL`) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result.runs:
        early, late = r.put_ms(slice(0, 10)), r.put_ms(slice(-10, None))
        steps = statistics.mean(len(p) for p in r.puts_ms)
        prune = (
            f"{_mean_p95(r.prune_ms)} (every {len(r.stored) / len(r.prune_ms):.1f})"
            if r.prune_ms
            else "—"
        )
        lines.append(
            f"| {r.config.label} | {steps:.1f} | {_mean_p95(early)} | {_mean_p95(late)} "
            f"| {_mean_p95(r.writes_ms)} | {prune} | {statistics.mean(r.turn_ms):.1f} "
            f"| {r.checkpoints} | {r.disk_bytes / 1e6:,.1f} MB "
            f"({r.compacted_bytes / 1e6:,.2f} MB) |"
        )
    default = next(r for r in result.runs if r.config == Config("latest", compaction=True))
    # bounded storage meets it whatever the ratio of two slopes near zero says
    met = _bounded(default) or default.growth <= LINEAR_MAX
    lines += [
        "",
        "*Tables on disk*: `pg_total_relation_size` of the three tables at the end, indexes "
        "and TOAST included. The space of pruned rows stays in the files, free for new rows "
        "once a vacuum has seen it (autovacuum, in a deployment); `VACUUM FULL` rewrites "
        "them to what the kept rows need.",
        "",
        f"Result: with the defaults (retention `latest`, compaction on) the thread keeps "
        f"{_kb(default.kept(len(default.stored)))} kB after {result.turns} turns (peak "
        f"{_kb(max(default.stored))} kB); storage {'meets' if met else 'MISSES'} the "
        "linear target.",
    ]
    return lines


def _mean_p95(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"{statistics.mean(values):.2f} ({p95:.2f})"


if __name__ == "__main__":
    print("\n".join(render(run())))
