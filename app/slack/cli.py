"""`agentloop slack`: run the Slack app in Socket Mode (development) or over HTTP (production)."""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console

from app.cli import logs
from app.settings import Settings
from app.slack.bolt import SlackConfigError, open_slack
from app.slack.settings import SlackSettings

logger = logging.getLogger(__name__)
err = Console(stderr=True)

EVENTS_PATH = "/slack/events"


def slack_command(
    http: Annotated[
        bool, typer.Option("--http", help="Serve Slack's HTTP requests instead of Socket Mode.")
    ] = False,
    port: Annotated[int, typer.Option("--port", help="HTTP port (with --http).")] = 3000,
    host: Annotated[str, typer.Option("--host", help="HTTP address (with --http).")] = "0.0.0.0",
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log to stderr too.")] = False,
) -> None:
    """Run the Slack app: Socket Mode with SLACK_APP_TOKEN, or HTTP with --http --port."""
    try:
        settings, slack = Settings(), SlackSettings()
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        err.print(f"[red]error:[/] invalid configuration: {problems}")
        raise typer.Exit(2) from None
    if not http and slack.app_token is None:
        err.print("[red]error:[/] Socket Mode needs SLACK_APP_TOKEN (or run with --http)")
        raise typer.Exit(2)
    logs.configure(settings.data_dir, verbose)
    try:
        asyncio.run(serve(settings, slack, http=http, host=host, port=port))
    except SlackConfigError as exc:
        err.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        pass
    except Exception as exc:
        logger.exception("the Slack app stopped")
        err.print(f"[red]error:[/] the Slack app stopped: {exc}")
        raise typer.Exit(1) from None


async def serve(
    settings: Settings, slack: SlackSettings, *, http: bool, host: str, port: int
) -> None:
    """Serve until cancelled."""
    async with open_slack(settings, slack, socket_mode=not http) as runtime:
        if http:
            from aiohttp import web

            runner = web.AppRunner(runtime.app.web_app(path=EVENTS_PATH, port=port))
            await runner.setup()
            await web.TCPSite(runner, host, port).start()
            err.print(f"agentloop Slack app listening on http://{host}:{port}{EVENTS_PATH}")
            try:
                await asyncio.Event().wait()
            finally:
                await runner.cleanup()
        else:
            from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

            assert slack.app_token is not None
            handler = AsyncSocketModeHandler(runtime.app, slack.app_token.get_secret_value())
            err.print("agentloop Slack app connected in Socket Mode")
            try:
                await handler.start_async()
            finally:
                await handler.close_async()


def main() -> None:
    """Run `slack_command` as a program (`python -m app.slack`)."""
    typer.run(slack_command)
