"""The records a question may offer: a kind's names, where it has a few, in the tools' schemas.

A pack's listers name every record of some of its kinds (`Pack.listers`). Where a kind has at
most `CHOICES` records, each offered tool's argument named for the kind lists them as its JSON
Schema `examples`: a model that must ask which client or room type is meant can name them
("the client (Acme or Globex)"), and one that writes a call sees what exists.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from tools.declaration import GatherContext, Lister

logger = logging.getLogger(__name__)

CHOICES = 8
"""A kind with more records than this is not listed: a question would not name them all."""


async def choices(listers: Iterable[Lister], ctx: GatherContext) -> dict[str, list[str]]:
    """Each listed kind's record names (each once, in order), for kinds with at most `CHOICES`."""
    found: dict[str, list[str]] = {}
    for lister in listers:
        try:
            named = await lister(ctx)
        except SQLAlchemyError:  # the workspace helps a question; without it the tools still run
            logger.warning("choices: listing the workspace's records failed", exc_info=True)
            continue
        for kind, names in named.items():
            found[kind] = list(dict.fromkeys([*found.get(kind, []), *names]))
    return {kind: names for kind, names in found.items() if 0 < len(names) <= CHOICES}


def with_choices(
    schemas: Sequence[dict[str, Any]], listed: Mapping[str, Sequence[str]]
) -> list[dict[str, Any]]:
    """`schemas` with each argument named for a listed kind giving its records as `examples`.

    The definitions passed in are left as they were: the registry keeps its own.
    """
    if not listed:
        return list(schemas)
    listing = []
    for schema in schemas:
        function = schema["function"]
        parameters = dict(function.get("parameters") or {})
        properties = dict(parameters.get("properties") or {})
        named = {a: p | {"examples": list(listed[a])} for a, p in properties.items() if a in listed}
        if named:
            parameters["properties"] = properties | named
            schema = {**schema, "function": {**function, "parameters": parameters}}
        listing.append(schema)
    return listing
