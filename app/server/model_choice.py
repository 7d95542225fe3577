"""The model is the server's choice: a run may choose only among the models its operator lists.

On a server that authenticates its callers, the `model` a run (an assistant, a cron) names
must be the server's own (`AGENTLOOP_MODEL`, the compaction model), one of
`AGENTLOOP_SERVER_MODELS`, or, only where the operator turned them on
(`AGENTLOOP_SERVER_SCRIPTED_MODELS`, a test server), a `scripted:` file. The check reads
the spec alone: a refused spec never reaches the filesystem, so the answer says nothing of
what exists on the server. The model a run uses is also what it costs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.server.access import refuse
from core.settings import Settings


def chosen_models(payload: Mapping[str, Any] | None) -> list[str]:
    """The model specs a run's payload names: in its context or its config's configurable."""
    if not isinstance(payload, Mapping):
        return []
    context = payload.get("context")
    config = payload.get("config")
    configurable = config.get("configurable") if isinstance(config, Mapping) else None
    return [
        str(spec)
        for place in (context, configurable)
        if isinstance(place, Mapping) and (spec := place.get("model"))
    ]


def check_models(settings: Settings, payload: Mapping[str, Any] | None) -> None:
    """Refuse (403) a payload that names a model the server does not let runs choose."""
    server = settings.server
    for spec in chosen_models(payload):
        if server.allows_model(spec, settings.model_spec(), settings.compaction_model):
            continue
        listed = sorted(server.models)
        offer = f", or one of {', '.join(listed)}" if listed else ""
        refuse(
            f"This server does not run the model {spec!r}: leave the model empty for its "
            f"default{offer}."
        )
