"""A PostgreSQL database made for one test and dropped after it."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator

PG_ADMIN_URL = os.environ.get(
    "AGENTLOOP_TEST_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
"""Where the tests create and drop their databases."""


@contextlib.contextmanager
def scratch_database(pg_url: str, tag: str, template: str = "") -> Iterator[str]:
    """Yield the URL of a new database beside `pg_url`'s, dropped afterwards.

    It is named after `pg_url`'s database, `tag` and a random suffix, and is a copy of
    `template` when one is given (else empty: never migrated).
    """
    import psycopg

    base, _, name = pg_url.rpartition("/")
    database = f"{name}_{tag}_{uuid.uuid4().hex[:8]}"
    copy = f' TEMPLATE "{template}"' if template else ""
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{database}"{copy}')
    try:
        yield f"{base}/{database}"
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
