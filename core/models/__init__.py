"""Chat model providers selected by a spec: `openai:<model>`, `local`, `scripted:<file>`."""

from __future__ import annotations

import threading
from pathlib import Path

from langchain_core.language_models import BaseChatModel

from core.models.errors import ModelConfigError
from core.observability.usage import relayed
from core.settings import Settings

__all__ = ["ModelConfigError", "ModelResolver", "build_chat_model"]


def build_chat_model(spec: str, settings: Settings) -> BaseChatModel:
    """Build a new chat model for `spec`, raising `ModelConfigError` with a one-line reason."""
    kind, _, rest = spec.partition(":")
    if kind == "openai":
        from core.models.openai import openai_chat_model

        return openai_chat_model(rest, settings)
    if kind == "scripted":
        from core.models.scripted import ScriptedChatModel

        if not rest:
            raise ModelConfigError("scripted: needs a file, e.g. scripted:tests/script.json")
        return ScriptedChatModel.from_file(Path(rest), transcript=settings.scripted_transcript)
    if spec == "local":
        return _local_model(settings)
    raise ModelConfigError(
        f"unknown model {spec!r}: expected openai:<model>, local or scripted:<file>"
    )


def _local_model(settings: Settings) -> BaseChatModel:
    """The embedded model (the `local` extra), its example vectors kept in the cache folder."""
    from local_model import LocalModelError, load

    try:
        return load(
            settings.local_model_path,
            n_ctx=settings.local_context_window,
            cache_dir=settings.local_cache_dir,
        )
    except LocalModelError as exc:
        raise ModelConfigError(str(exc)) from exc


class ModelResolver:
    """Builds each model spec once per process and hands the same instance to every run.

    Loading the local model takes seconds and a scripted model must consume its file once
    per process, so instances are cached by spec.
    """

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._models: dict[str, BaseChatModel] = {}
        self._lock = threading.Lock()

    @property
    def settings(self) -> Settings:
        """The settings the models are built from."""
        return self._settings

    def resolve(self, spec: str | None) -> BaseChatModel:
        """Return the model for `spec` (None: the deployment default)."""
        spec = spec or self._settings.model_spec()
        with self._lock:
            model = self._models.get(spec)
            if model is None:
                model = build_chat_model(spec, self._settings)
                self._models[spec] = model
            # Each call's tokens reach the run making it (`core.observability.usage`).
            return relayed(model)
