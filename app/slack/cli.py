"""`agentloop slack`: run the Slack app in Socket Mode (development) or over HTTP (production).

SIGTERM stops it cleanly: it stops taking Slack's requests (the HTTP listener or the
socket closes, so Slack delivers to another worker), lets the turns in flight end within
the grace period, interrupts the rest (their threads are told; `continue` carries them on)
and exits 0.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated

import typer
from rich.console import Console

from app.slack.http_server import EVENTS_PATH, HEALTH_PATH
from app.slack.runtime import SlackRuntime, open_slack
from app.slack.startup import SlackConfigError, check_app_token
from app.slack.web_api import web_client
from core.db.reachability import WorkspaceUnavailable, check
from core.observability import logs
from core.settings import ConfigurationError, Settings, load_settings
from core.settings_sections import SlackSection
from graph.termination import on_sigterm

logger = logging.getLogger(__name__)
err = Console(stderr=True, soft_wrap=True)


def slack_command(
    http: Annotated[
        bool, typer.Option("--http", help="Serve Slack's HTTP requests instead of Socket Mode.")
    ] = False,
    port: Annotated[int, typer.Option("--port", help="HTTP port (with --http).")] = 3000,
    host: Annotated[str, typer.Option("--host", help="HTTP address (with --http).")] = "0.0.0.0",
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log to stderr too.")] = False,
) -> None:
    """Run the Slack app: Socket Mode with SLACK_APP_TOKEN, or HTTP with --http --port.

    A refused setting, token or model stops it at once: one line, exit code 2.
    """
    try:
        settings = load_settings()
        check(settings, migrated=False)  # its turns say how to set up a workspace
    except (ConfigurationError, WorkspaceUnavailable) as exc:
        err.print(f"[red]error:[/] {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    logs.configure(settings.data_dir, verbose)
    try:
        asyncio.run(serve(settings, settings.slack, http=http, host=host, port=port))
    except SlackConfigError as exc:
        err.print(f"[red]error:[/] {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        pass
    except Exception as exc:
        logger.exception("the Slack app stopped")
        err.print(f"[red]error:[/] the Slack app stopped: {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None


async def serve(
    settings: Settings, slack: SlackSection, *, http: bool, host: str, port: int
) -> None:
    """Serve until cancelled, or until SIGTERM (then stop cleanly)."""
    asked_to_stop = asyncio.Event()

    async def stop() -> None:
        asked_to_stop.set()

    # Handled until everything closed (the audit written): the app never dies half closed.
    with on_sigterm(stop):
        async with open_slack(settings, slack, socket_mode=not http) as runtime:
            await _serve(runtime, slack, http=http, host=host, port=port, until=asked_to_stop)
            if asked_to_stop.is_set():
                interrupted = await runtime.shutdown()
                logger.info("stopped on SIGTERM; %d turn(s) interrupted", interrupted)


async def _serve(
    runtime: SlackRuntime,
    slack: SlackSection,
    *,
    http: bool,
    host: str,
    port: int,
    until: asyncio.Event,
) -> None:
    """Take Slack's requests until `until` is set (or the task is cancelled)."""
    if http:
        from aiohttp import web

        runner = web.AppRunner(runtime.web_app())
        await runner.setup()
        await web.TCPSite(runner, host, port).start()
        err.print(
            f"agentloop Slack app listening on http://{host}:{port}{EVENTS_PATH} "
            f"(health: {HEALTH_PATH})",
            highlight=False,
            soft_wrap=True,
        )
        try:
            await until.wait()
        finally:
            await runner.cleanup()
    else:
        from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

        assert slack.app_token is not None, "checked by open_slack"
        app_token = slack.app_token.get_secret_value()
        client = web_client(slack, None)
        url = await check_app_token(client, app_token)
        handler = AsyncSocketModeHandler(runtime.app, app_token, web_client=client)
        handler.client.wss_uri = url
        try:
            await handler.connect_async()
            err.print("agentloop Slack app connected in Socket Mode")
            await until.wait()
        finally:
            await handler.close_async()


def main() -> None:
    """Run `slack_command` as a program (`python -m app.slack`)."""
    typer.run(slack_command)
