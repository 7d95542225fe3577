"""Whether the workspace can be used, checked once before any pool opens on it.

`check` looks at the data directory, connects to the workspace database once with a short
timeout and, when asked, compares its Alembic revision with the newest one. Each way of
failing is a `WorkspaceUnavailable` whose message is one line naming what and why.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, make_url
from sqlalchemy.engine import URL
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import NullPool

from core.db.engine import sync_url
from core.db.migrate import Branch, heads
from core.settings import Settings

CONNECT_TIMEOUT_S = 3
"""How long the first connection may take before the database counts as unreachable."""


class WorkspaceUnavailable(Exception):
    """The workspace cannot be used; the message is one line for the person."""


def check(settings: Settings, *, migrated: bool = True, branches: Sequence[Branch] = ()) -> None:
    """Raise `WorkspaceUnavailable` unless the workspace can be used as it is.

    `migrated`: also require the runtime's tables and the enabled packs' (`branches`) at
    their newest revisions (every command but `db upgrade`, which is how to get there).
    """
    usable_directory(settings.data_dir, "the data directory")
    try:
        url = make_url(sync_url(settings))
    except (ValueError, SQLAlchemyError) as exc:
        raise WorkspaceUnavailable(str(exc)) from None
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        path = Path(str(url.database))
        usable_directory(path.parent, "the directory of the workspace database")
        if migrated and not path.exists():
            raise WorkspaceUnavailable(not_migrated(settings))
    current = _revisions(url)
    missing = heads(branches) - current if migrated else set()
    if missing:
        detail = (
            f"it is at {', '.join(sorted(current))}; missing {', '.join(sorted(missing))}"
            if current
            else None
        )
        raise WorkspaceUnavailable(not_migrated(settings, detail))


def where(settings: Settings) -> str:
    """Return the workspace database as a person would name it, without its password."""
    url = make_url(sync_url(settings))
    if url.get_backend_name() == "sqlite":
        return str(url.database)
    return f"postgresql://{_address(url)}/{url.database or ''}"


def not_migrated(settings: Settings, detail: str | None = None) -> str:
    """The line that says the workspace needs `agentloop db upgrade` (`detail`: how far)."""
    more = f" ({detail})" if detail else ""
    return f"the workspace at {where(settings)} is not migrated{more}: run `agentloop db upgrade`"


def usable_directory(directory: Path, what: str) -> None:
    """Create `directory` if it is missing, and check a file can be written in it."""
    if directory.exists() and not directory.is_dir():
        raise WorkspaceUnavailable(f"{what} {directory} is not a directory (it is a file)")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise WorkspaceUnavailable(f"{what} {directory} is not writable: {reason}") from None


def _revisions(url: URL) -> set[str]:
    """Connect once; return the revisions the database is at (one per migrated branch)."""
    postgres = url.get_backend_name() == "postgresql"
    connect_args = {"connect_timeout": CONNECT_TIMEOUT_S} if postgres else {}
    engine = create_engine(url, poolclass=NullPool, connect_args=connect_args)
    try:
        with engine.connect() as connection:
            return set(MigrationContext.configure(connection).get_current_heads())
    except SQLAlchemyError as exc:
        raise WorkspaceUnavailable(_unreachable(url, exc)) from None
    finally:
        engine.dispose()


def _unreachable(url: URL, exc: SQLAlchemyError) -> str:
    """One line for a failed first connection: which database, where, and why."""
    cause = getattr(exc, "orig", None) or exc
    reason = _reason(cause)
    address = _address(url)
    if url.get_backend_name() == "sqlite":
        return f"cannot open the workspace database {url.database}: {reason}"
    # A refused connection carries no SQLSTATE (libpq reports it before a session
    # exists): the server's FATAL line says what it refused.
    if re.search(r'database ".*" does not exist', reason):
        return f"database '{url.database}' does not exist on {address}"
    if re.search(r"authentication failed|role .* does not exist|no pg_hba.conf", reason):
        return f"PostgreSQL on {address} refused user '{url.username}': {reason}"
    if "FATAL:" in str(cause):
        return f"cannot use database '{url.database}' on {address}: {reason}"
    return f"cannot reach PostgreSQL on {address}: {reason}"


def _address(url: URL) -> str:
    return f"{url.host or 'localhost'}:{url.port or 5432}"


def _reason(cause: BaseException) -> str:
    """The server's or the socket's own words, without the driver's preamble."""
    text = str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__
    for marker in ("FATAL:", "failed:"):
        if marker in text:
            text = text.rsplit(marker, 1)[1]
    text = text.strip()
    return text[:1].lower() + text[1:] if text else type(cause).__name__
