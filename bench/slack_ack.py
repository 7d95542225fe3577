"""Event acknowledgement latency of the Slack app over HTTP while runs are in progress.

The real Bolt app is served on loopback with its Web API pointed at the mock Slack server;
the model is scripted with a 2 s answer, so every run is still going when later events
arrive. 10 events start runs first, then 50 signed events (each a new thread) are sent at
once; the latency is from sending a request to its HTTP 200 (signature check, Bolt's
dispatch, the listener started; the listener then claims the event id in the database).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

from app.db.engine import open_database
from app.db.migrate import upgrade
from app.db.seed import seed_demo
from app.settings import Settings
from app.slack.bolt import open_slack
from app.slack.settings import SlackSettings
from bench.workspace import PG_ADMIN_URL
from checkpoints.savers import setup_checkpointer
from tests.support.slack_api import MockSlackApi, SlackSender, mention

SECRET = "bench-secret"
CONCURRENT = 50
IN_PROGRESS = 10
MODEL_DELAY_S = 1.0
ANSWER = "Garlic Press belongs to Thorinox."


@dataclass
class AckResult:
    """Ack latencies (ms) of one concurrent batch on one database."""

    database: str
    latencies_ms: list[float]
    non_200: int

    def quantile(self, q: float) -> float:
        """Return the q-quantile (0..1) of the latencies."""
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _measure(database: str, database_url: str, data_dir: Path) -> AckResult:
    script = data_dir / "script.json"
    turns = [{"content": ANSWER, "delay_s": MODEL_DELAY_S}]
    script.write_text(json.dumps(turns * (CONCURRENT + IN_PROGRESS + 5)), encoding="utf-8")
    settings = Settings(
        _env_file=None, database_url=database_url, data_dir=data_dir, model=f"scripted:{script}"
    )
    with MockSlackApi() as api:
        slack = SlackSettings(
            _env_file=None, bot_token="xoxb-bench", signing_secret=SECRET, api_url=api.url
        )
        async with open_slack(settings, slack) as runtime:
            runner = web.AppRunner(runtime.app.web_app(path="/slack/events"))
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            url = f"http://127.0.0.1:{port}/slack/events"
            # Slack is another machine: the load comes from its own thread and event loop,
            # so the app's loop only serves requests and runs turns.
            await asyncio.to_thread(_load, url, 0, IN_PROGRESS)
            await asyncio.sleep(0.3)
            measured = await asyncio.to_thread(_load, url, IN_PROGRESS, CONCURRENT)
            total = IN_PROGRESS + CONCURRENT
            await api.wait_for("chat.update", within=180, count=total, text=ANSWER)
            await runner.cleanup()
    return AckResult(
        database=database,
        latencies_ms=[ms for ms, _ in measured],
        non_200=sum(1 for _, status in measured if status != 200),
    )


def _load(url: str, first: int, count: int) -> list[tuple[float, int]]:
    """Send `count` events at once from a fresh event loop; return (ms, status) of each."""
    sender = SlackSender(url, SECRET)

    async def send(i: int) -> tuple[float, int]:
        event = mention(f"C{i % 7}", "U0GRACE", "who owns Garlic Press?", f"{i}.000001")
        started = time.perf_counter()
        status = await sender.event(event, event_id=f"Ev{uuid.uuid4().hex}")
        return (time.perf_counter() - started) * 1000, status

    async def burst() -> list[tuple[float, int]]:
        return await asyncio.gather(*(send(first + i) for i in range(count)))

    return asyncio.run(burst())


async def _prepare(url: str) -> None:
    settings = Settings(_env_file=None, database_url=url)
    await asyncio.to_thread(upgrade, settings)
    db = open_database(settings)
    try:
        await seed_demo(db)
    finally:
        await db.dispose()
    await setup_checkpointer(settings)


async def _on_sqlite() -> AckResult:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'workspace.sqlite'}"
        await _prepare(url)
        return await _measure("sqlite", url, Path(tmp))


async def _on_postgres(say: Callable[[str], None]) -> AckResult | None:
    import psycopg

    name = f"agentloop_bench_slack_{uuid.uuid4().hex[:8]}"
    try:
        admin = await psycopg.AsyncConnection.connect(PG_ADMIN_URL, autocommit=True)
    except psycopg.OperationalError as exc:
        say(f"postgresql: skipped, not reachable: {exc}")
        return None
    async with admin:
        await admin.execute(f'CREATE DATABASE "{name}"')
    url = f"{PG_ADMIN_URL.rsplit('/', 1)[0]}/{name}"
    try:
        await _prepare(url)
        with tempfile.TemporaryDirectory() as tmp:
            return await _measure("postgresql", url, Path(tmp))
    finally:
        async with await psycopg.AsyncConnection.connect(PG_ADMIN_URL, autocommit=True) as admin:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def run(say: Callable[[str], None] | None = None) -> list[AckResult]:
    """Measure on SQLite and, when a server answers, on PostgreSQL."""
    say = say or (lambda _: None)

    async def both() -> list[AckResult]:
        results = [await _on_sqlite()]
        on_pg = await _on_postgres(say)
        return results + ([on_pg] if on_pg else [])

    return asyncio.run(both())


def render(results: list[AckResult]) -> list[str]:
    """Return the RESULTS.md section."""
    lines = [
        "## Slack event acknowledgement under load",
        "",
        f"The Bolt app over HTTP on loopback (`process_before_response=False`), the Web API on "
        f"the mock Slack server. {IN_PROGRESS} events start runs (scripted model answering "
        f"after {MODEL_DELAY_S:g} s), then {CONCURRENT} signed events, each a new thread, "
        "are sent at once from another thread while those runs are in progress; latency is "
        "request sent → HTTP 200 "
        "(signature verified, listener started; the event id is claimed in `processed_events` "
        "by the listener, after the acknowledgement). "
        "Target: p99 < 100 ms.",
        "",
        "| database | events | p50 ms | p99 ms | max ms | non-200 | target (p99) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        p99 = r.quantile(0.99)
        lines.append(
            f"| {r.database} | {len(r.latencies_ms)} | {statistics.median(r.latencies_ms):.1f} "
            f"| {p99:.1f} | {max(r.latencies_ms):.1f} | {r.non_200} "
            f"| < 100 ms: {'met' if p99 < 100 else 'MISSED'} |"
        )
    return lines


if __name__ == "__main__":
    print("\n".join(render(run(say=print))))
