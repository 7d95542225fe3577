"""How soon a streamed answer's first words are visible after the model's first token.

The model is the scripted one, writing a word every `TOKEN_DELAY_S` after `FIRST_TOKEN_S`;
a callback on the model stamps its first token of each turn (`time.monotonic`). Two
surfaces, each over `TURNS` turns on a SQLite workspace:

- CLI: the runner in process, its events drawn by `chat`'s own renderer (`LiveStatus`) off a
  terminal, into a file that stamps its first write of answer text;
- Slack, HTTP mode: the Bolt app served on loopback, a signed mention per turn, the mock Web
  API (in this process, same clock) stamping the first stream call that carries text.
"""

from __future__ import annotations

import asyncio
import io
import json
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web
from langchain_core.callbacks import BaseCallbackHandler
from rich.console import Console

from app.cli.render import LiveStatus
from app.slack.runtime import open_slack
from core.db.engine import open_database
from core.models import ModelResolver
from core.settings import Settings
from core.settings_sections import SlackSection
from graph.runner import Runner, TurnRequest
from tests.support.slack_api import MockSlackApi
from tests.support.slack_sender import SlackSender, mention
from tools.pack_data import seed_demo, upgrade_workspace
from tools.pack_loading import enabled

TURNS = 20
FIRST_TOKEN_S = 0.2
TOKEN_DELAY_S = 0.02
ANSWER = (
    "Garlic Press belongs to Thorinox: the brand was mapped to that client in March, and its "
    "open tasks are the listing images refresh and the coupon code for the spring sale."
)
SECRET = "bench-secret"
CLI_TARGET_MS = 50.0
SLACK_TARGET_MS = 300.0


@dataclass
class Latencies:
    """First-visible-words latencies (ms) of one surface, after the model's first token."""

    surface: str
    ms: list[float]
    target_ms: float

    def quantile(self, q: float) -> float:
        """Return the q-quantile (0..1)."""
        ordered = sorted(self.ms)
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class FirstTokens(BaseCallbackHandler):
    """Stamps the first token of every model call."""

    run_inline = True

    def __init__(self) -> None:
        self.stamps: list[float] = []
        self._seen: set[Any] = set()

    def on_llm_new_token(self, token: Any, **kwargs: Any) -> None:
        """Stamp the call's first token."""
        run_id = kwargs.get("run_id")
        if run_id not in self._seen:
            self._seen.add(run_id)
            self.stamps.append(time.monotonic())


class StampedFile(io.StringIO):
    """A console's file that stamps the first write of each turn."""

    def __init__(self) -> None:
        super().__init__()
        self.first: float | None = None

    def write(self, text: str) -> int:
        """Write, stamping the first non-blank text."""
        if self.first is None and text.strip():
            self.first = time.monotonic()
        return super().write(text)


def _settings(tmp: Path) -> Settings:
    script = tmp / "script.json"
    turn = {"content": ANSWER, "delay_s": FIRST_TOKEN_S, "token_delay_s": TOKEN_DELAY_S}
    script.write_text(json.dumps([turn] * TURNS), encoding="utf-8")
    url = f"sqlite:///{tmp / 'workspace.sqlite'}"
    return Settings(_env_file=None, database_url=url, data_dir=tmp, model=f"scripted:{script}")


async def _prepare(settings: Settings) -> None:
    await asyncio.to_thread(upgrade_workspace, settings)
    db = open_database(settings)
    try:
        await seed_demo(db, enabled(None))
    finally:
        await db.dispose()


async def _cli() -> Latencies:
    with tempfile.TemporaryDirectory() as tmp:
        settings = _settings(Path(tmp))
        await _prepare(settings)
        resolver = ModelResolver(settings)
        tokens = FirstTokens()
        resolver.resolve(None).callbacks = [tokens]
        measured = []
        async with Runner.open(settings, models=resolver) as runner:
            for i in range(TURNS):
                screen = StampedFile()
                request = TurnRequest(thread_id=f"cli-{i}", user_id="U1", message="who owns it?")
                with LiveStatus(Console(file=screen, force_terminal=False)) as status:
                    await runner.run_turn(request, status)
                assert screen.first is not None, "nothing was shown"
                measured.append((screen.first - tokens.stamps[-1]) * 1000)
    return Latencies("CLI (`chat`'s renderer)", measured, CLI_TARGET_MS)


async def _slack() -> Latencies:
    with tempfile.TemporaryDirectory() as tmp, MockSlackApi() as api:
        settings = _settings(Path(tmp))
        await _prepare(settings)
        slack = SlackSection(bot_token="xoxb-bench", signing_secret=SECRET, api_url=api.url)
        async with open_slack(settings, slack) as runtime:
            tokens = FirstTokens()

            async def attach(conversations: Any) -> None:
                conversations.runner.models.resolve(None).callbacks = [tokens]

            await runtime.call(attach)
            runner = web.AppRunner(runtime.web_app())
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            sender = SlackSender(f"http://127.0.0.1:{port}/slack/events", SECRET)
            measured = []
            try:
                for i in range(TURNS):
                    await sender.event(mention("C1", "U0GRACE", "who owns it?", f"{i + 1}.1"))
                    await api.wait_for("chat.stopStream", within=60, count=i + 1)
                    shown = next(
                        c.at
                        for c in api.made()
                        if c.method in ("chat.startStream", "chat.appendStream")
                        and c.args.get("thread_ts", "") in ("", f"{i + 1}.1")
                        and c.at >= tokens.stamps[-1]
                        and any(ch.get("type") == "markdown_text" for ch in c.args["chunks"])
                    )
                    measured.append((shown - tokens.stamps[-1]) * 1000)
            finally:
                await runner.cleanup()
    return Latencies("Slack, HTTP mode (mock Web API)", measured, SLACK_TARGET_MS)


def run() -> list[Latencies]:
    """Measure both surfaces."""

    async def both() -> list[Latencies]:
        return [await _cli(), await _slack()]

    return asyncio.run(both())


def render(results: list[Latencies]) -> list[str]:
    """Return the RESULTS.md section."""
    lines = [
        "## Streamed answers: first words visible",
        "",
        f"A scripted model writes a {len(ANSWER.split())}-word answer, a word every "
        f"{TOKEN_DELAY_S * 1000:g} ms after {FIRST_TOKEN_S * 1000:g} ms; latency is the "
        "model's first token (a callback on the model) → the first words visible: for the "
        "CLI, the first write of `chat`'s renderer (off a terminal) for the runner's events "
        "in process; for Slack, the first `chat.startStream`/`appendStream` carrying text "
        "that reaches the mock Web API, from the Bolt app in HTTP mode answering a signed "
        f"mention. {TURNS} turns each, one after another, SQLite workspace.",
        "",
        "| surface | turns | p50 ms | p95 ms | max ms | target | met |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        met = "yes" if r.quantile(0.95) < r.target_ms else "no"
        lines.append(
            f"| {r.surface} | {len(r.ms)} | {statistics.median(r.ms):.1f} | "
            f"{r.quantile(0.95):.1f} | {max(r.ms):.1f} | < {r.target_ms:g} ms | {met} |"
        )
    return lines
