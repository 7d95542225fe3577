"""How `agentloop` ends when a command cannot start or breaks: one line on stderr, an exit code.

A bad start (bad usage, configuration, a database that cannot be reached or is not
migrated, an unusable data directory) is a `BadStart`, exit 2. Click's own usage errors
are shown the same way. Anything unexpected is one line too, exit 1; `agentloop --debug`
shows its traceback instead.
"""

from __future__ import annotations

import logging
import re
import sys

import typer

# Typer carries its own copy of click; its usage errors are these classes, not click's.
from typer._click.exceptions import NoArgsIsHelpError, UsageError

logger = logging.getLogger(__name__)

LONG_WORD = 200
"""A word longer than this (a pasted id, an option's value) is shown shortened, never whole;
paths stay whole up to here."""
SHOWN = 40
"""How many characters of a long word are shown, before "…"."""

_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_LONG = re.compile(rf"\S{{{LONG_WORD + 1},}}")


class BadStart(typer.TyperException):
    """A command that cannot start: its message is the one line to show; exit 2."""

    exit_code = 2


class _Flags:
    debug = False


def debug_option(
    debug: bool = typer.Option(
        False, "--debug", help="Show the traceback of an unexpected error.", is_eager=True
    ),
) -> None:
    """Options every command shares (the app's callback)."""
    _Flags.debug = debug


def shorten(text: str, limit: int = SHOWN) -> str:
    """Return `text`, or its first `limit` characters and "…" when it is longer."""
    return text if len(text) <= limit else text[:limit] + "…"


def one_line(message: str) -> str:
    """Return `message` as one printable line: long words shortened, no control characters."""
    flat = " ".join(message.split())
    flat = _LONG.sub(lambda m: shorten(m.group(0)), flat)
    return _UNPRINTABLE.sub(lambda m: m.group(0).encode("unicode_escape").decode(), flat)


def run(app: typer.Typer, args: list[str] | None = None) -> int:
    """Run the command line and return its exit code; every failure is one line on stderr."""
    try:
        code = app(args=args, standalone_mode=False)
    except NoArgsIsHelpError as exc:
        exc.show()  # the help, as `agentloop` alone asks for
        return exc.exit_code
    except UsageError as exc:
        where = f" (see `{exc.ctx.command_path} --help`)" if exc.ctx is not None else ""
        return _say(exc.format_message() + where, exc.exit_code)
    except typer.TyperException as exc:
        return _say(exc.format_message(), exc.exit_code)
    except typer.Abort:
        return _say("aborted", 1)
    except Exception as exc:
        if _Flags.debug:
            raise
        if logging.getLogger().handlers:  # the log file holds the traceback
            logger.exception("unexpected error")
        return _say(f"{type(exc).__name__}: {exc} (`agentloop --debug …` shows the traceback)", 1)
    return code if isinstance(code, int) else 0


def _say(message: str, code: int) -> int:
    sys.stderr.write(f"error: {one_line(message)}\n")
    sys.stderr.flush()
    return code
