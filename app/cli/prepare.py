"""`agentloop prepare`, and the same work shown before a first turn that would do it.

The embedded model reads every tool's examples the first time it is offered them (about
seven minutes on two cores, once per machine: see graph/warm_up.py). `make install` runs
`prepare`, so the first question is answered in seconds; `chat` and `ask` do what is left
under a status line that says what is happening, instead of a first turn that hangs.
"""

from __future__ import annotations

import asyncio
import time

from rich.console import Console

from app.cli.bad_starts import BadStart
from app.cli.config import settings_or_exit
from app.cli.options import ModelOpt
from core.models import ModelConfigError, ModelResolver
from graph.runner import Runner
from graph.warm_up import needs_warm_up, warm_up
from tools.pack_loading import PackError
from tools.registry import registry_for

out = Console()
err = Console(stderr=True)
READING = "Getting the model ready (some minutes the first time on a machine)…"


def prepare(model: ModelOpt = None) -> None:
    """Do the model's one-time work now (the local model reads the tools' examples)."""
    settings = settings_or_exit()
    spec = model or settings.model_spec()
    try:
        chat_model = ModelResolver(settings).resolve(spec)
    except ModelConfigError as exc:
        raise BadStart(str(exc)) from None
    if not needs_warm_up(chat_model):
        out.print(f"{spec}: nothing to prepare")
        return
    started = time.monotonic()
    try:
        registry = registry_for(settings)
    except PackError as exc:
        raise BadStart(str(exc)) from None
    with err.status(READING, spinner="dots"):
        warm_up(chat_model, registry)
    out.print(f"{spec}: ready ({time.monotonic() - started:.0f} s)")


async def warmed(runner: Runner, spec: str | None, console: Console) -> None:
    """Warm the run's model up before a first turn, under a status line when it has work."""
    if runner.settings.graph_url:
        return  # a server's models are its own
    model = runner.models.resolve(spec)
    if needs_warm_up(model):
        with console.status(READING, spinner="dots"):
            await asyncio.to_thread(warm_up, model, runner.registry)
