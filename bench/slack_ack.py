"""Event acknowledgement latency of the Slack app over HTTP while turns are in progress.

The application `agentloop slack --http` serves on loopback; its Slack is the mock Web API,
in a process of its own. The model is scripted with a 2 s answer, so every turn is still
going when later events arrive. After a warm-up burst (the pools of a server that has been
serving), 10 events start turns, then 50 signed events (each a new thread) are sent at once
from another process; the latency is from sending a request to its HTTP 200 (signature
check, parse, the event handed to the turn loop, which claims the event id and runs the
turn). The same burst against a bare server gives the sender's and the machine's floor.
"""

from __future__ import annotations

import asyncio
import gc
import json
import multiprocessing
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import aiohttp
from aiohttp import web

from app.slack.runtime import open_slack
from bench.workspace import PG_ADMIN_URL
from checkpoints.savers import setup_checkpointer
from core.db.engine import open_database
from core.settings import Settings
from core.settings_sections import SlackSection
from tests.support.slack_api_process import RemoteSlackApi
from tests.support.slack_sender import SlackSender, mention, signed_headers
from tools.pack_data import seed_demo, upgrade_workspace
from tools.pack_loading import enabled

SECRET = "bench-secret"
CONCURRENT = 50
IN_PROGRESS = 10
MODEL_DELAY_S = 2.0
ANSWER = "Garlic Press belongs to Thorinox."
FLOOR = "*floor: a bare aiohttp server answering 200*"


@dataclass
class AckResult:
    """Ack latencies (ms) of one concurrent batch on one database."""

    database: str
    latencies_ms: list[float]
    non_200: int
    in_progress: int
    """Turns of the first 10 still running when the 50 events had all been acknowledged."""

    def quantile(self, q: float) -> float:
        """Return the q-quantile (0..1) of the latencies."""
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _measure(database: str, database_url: str, data_dir: Path) -> AckResult:
    script = data_dir / "script.json"
    turns = [{"content": ANSWER, "delay_s": MODEL_DELAY_S}]
    script.write_text(json.dumps(turns * (2 * CONCURRENT + IN_PROGRESS)), encoding="utf-8")
    settings = Settings(
        _env_file=None, database_url=database_url, data_dir=data_dir, model=f"scripted:{script}"
    )
    with RemoteSlackApi() as api:
        slack = SlackSection(bot_token="xoxb-bench", signing_secret=SECRET, api_url=api.url)
        async with open_slack(settings, slack) as runtime:
            runner = web.AppRunner(runtime.web_app())
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            url = f"http://127.0.0.1:{port}/slack/events"
            # Slack is another machine: the requests come from another process, so the
            # app's process only serves them and runs turns.
            loop = asyncio.get_running_loop()
            spawn = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(1, mp_context=spawn) as slack_side:
                # A server that has been serving: its pools hold the connections a burst
                # of turns needs (a cold one opens them during the measured burst).
                await loop.run_in_executor(slack_side, _load, url, 0, CONCURRENT, "warm-up")
                await api.wait_for("chat.stopStream", within=180, count=CONCURRENT)
                first = CONCURRENT
                await loop.run_in_executor(slack_side, _load, url, first, IN_PROGRESS, "")
                await asyncio.sleep(0.3)
                measured = await loop.run_in_executor(
                    slack_side, _load, url, first + IN_PROGRESS, CONCURRENT, ""
                )
            answered = await asyncio.to_thread(api.made, "chat.stopStream")
            in_progress = IN_PROGRESS - sum(c["args"]["channel"] != "warm-up" for c in answered)
            total = 2 * CONCURRENT + IN_PROGRESS
            await api.wait_for("chat.stopStream", within=180, count=total)
            await runner.cleanup()
    return AckResult(
        database=database,
        latencies_ms=[ms for ms, _ in measured],
        non_200=sum(1 for _, status in measured if status != 200),
        in_progress=in_progress,
    )


def _load(url: str, first: int, count: int, channel: str) -> list[tuple[float, int]]:
    """Send `count` events at once from a fresh event loop; return (ms, status) of each.

    The bodies are built and signed before the burst, one client session sends them (a new
    connection each) and the sender does not collect garbage meanwhile, so the time
    measured is the server's, not the sender's.
    `channel`: post them in this channel (the warm-up's, whose answers are not counted).
    """
    sender = SlackSender(url, SECRET)
    requests = []
    for i in range(first, first + count):
        event = mention(channel or f"C{i % 7}", "U0GRACE", "who owns Garlic Press?", f"{i}.1")
        body = json.dumps(sender.event_body(event, f"Ev{uuid.uuid4().hex}")).encode()
        headers = {**signed_headers(SECRET, body), "Content-Type": "application/json"}
        requests.append((body, headers))

    async def burst() -> list[tuple[float, int]]:
        connector = aiohttp.TCPConnector(limit=0, force_close=True)
        async with aiohttp.ClientSession(connector=connector) as session:

            async def send(body: bytes, headers: dict[str, str]) -> tuple[float, int]:
                started = time.perf_counter()
                async with session.post(url, data=body, headers=headers) as response:
                    await response.read()
                return (time.perf_counter() - started) * 1000, response.status

            return await asyncio.gather(*(send(b, h) for b, h in requests))

    # The sender imported the app (a large heap): a full collection in it mid-burst
    # would be counted as the server's latency.
    gc.collect()
    gc.disable()
    try:
        return asyncio.run(burst())
    finally:
        gc.enable()


async def _prepare(url: str) -> None:
    settings = Settings(_env_file=None, database_url=url)
    await asyncio.to_thread(upgrade_workspace, settings)
    db = open_database(settings)
    try:
        await seed_demo(db, enabled(None))
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


async def _floor() -> AckResult:
    """The same burst against a bare aiohttp server answering 200: the sender's and the
    machine's share of every latency above."""

    async def ok(request: web.Request) -> web.Response:
        await request.read()
        return web.Response()

    application = web.Application()
    application.router.add_post("/slack/events", ok)
    runner = web.AppRunner(application)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    url = f"http://127.0.0.1:{port}/slack/events"
    loop = asyncio.get_running_loop()
    try:
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(1, mp_context=spawn) as slack_side:
            await loop.run_in_executor(slack_side, _load, url, 0, 1, "warm-up")
            measured = await loop.run_in_executor(slack_side, _load, url, 1, CONCURRENT, "")
    finally:
        await runner.cleanup()
    return AckResult(
        database=FLOOR,
        latencies_ms=[ms for ms, _ in measured],
        non_200=sum(1 for _, status in measured if status != 200),
        in_progress=0,
    )


def run(say: Callable[[str], None] | None = None) -> list[AckResult]:
    """Measure on SQLite and, when a server answers, on PostgreSQL; then the floor."""
    say = say or (lambda _: None)

    async def both() -> list[AckResult]:
        results = [await _on_sqlite()]
        on_pg = await _on_postgres(say)
        return [*results, *([on_pg] if on_pg else []), await _floor()]

    return asyncio.run(both())


def render(results: list[AckResult]) -> list[str]:
    """Return the RESULTS.md section."""
    lines = [
        "## Slack event acknowledgement under load",
        "",
        "The application `agentloop slack --http` serves, on loopback, with the mock Slack "
        f"Web API as its Slack. After a warm-up ({CONCURRENT} turns at once, answered), "
        f"{IN_PROGRESS} events start turns (scripted model answering "
        f"after {MODEL_DELAY_S:g} s), then {CONCURRENT} signed events, each a new thread, "
        "are sent at once from another process while those turns are in progress; latency is "
        "request sent → HTTP 200 (bodies signed before the burst, one client session). The "
        "loop that answers only verifies the signature, parses and hands the event to the "
        "turn loop (a thread of its own), where the event id is claimed in "
        "`processed_events` and the turn runs; the mock Web API runs in a process of its "
        "own, as Slack does. *In progress*: turns of the first "
        f"{IN_PROGRESS} still running once the {CONCURRENT} were acknowledged. The last row "
        "is the same burst against a server that does nothing: what the sender and the "
        "machine take of each latency. Target: p99 < 100 ms.",
        "",
        "| database | events | in progress | p50 ms | p99 ms | max ms | non-200 | target (p99) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        p99 = r.quantile(0.99)
        if r.database == FLOOR:
            lines.append(
                f"| {r.database} | {len(r.latencies_ms)} | — "
                f"| {statistics.median(r.latencies_ms):.1f} | {p99:.1f} "
                f"| {max(r.latencies_ms):.1f} | {r.non_200} | — |"
            )
            continue
        lines.append(
            f"| {r.database} | {len(r.latencies_ms)} | {r.in_progress} "
            f"| {statistics.median(r.latencies_ms):.1f} "
            f"| {p99:.1f} | {max(r.latencies_ms):.1f} | {r.non_200} "
            f"| < 100 ms: {'met' if p99 < 100 else 'MISSED'} |"
        )
    return lines


if __name__ == "__main__":
    print("\n".join(render(run(say=print))))
