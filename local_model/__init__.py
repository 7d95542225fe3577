"""The embedded offline chat model: SmolLM2-135M-Instruct on llama.cpp, importing no app code."""

from __future__ import annotations

from pathlib import Path

from local_model.chat import MODEL_NAME, LocalChatModel
from local_model.intent import Embedder, Intents
from local_model.loading import LocalModelError, default_gguf_path, load_llamas

__all__ = ["MODEL_NAME", "LocalChatModel", "LocalModelError", "default_gguf_path", "load"]


def load(
    path: Path | None = None, *, n_ctx: int = 4096, cache_dir: Path | None = None
) -> LocalChatModel:
    """Load the model (`path` None: the shipped GGUF); `cache_dir` keeps the examples' vectors.

    Raises:
        LocalModelError: The 'local' extra is missing or the file cannot be loaded.
    """
    writer, reader, found = load_llamas(path, n_ctx)
    intents = Intents(Embedder(reader, found, cache_dir))
    return LocalChatModel(llama=writer, intents=intents, model_path=str(found))
