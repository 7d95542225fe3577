"""The examples' vectors are kept on disk for every view, whatever each view's size."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from local_model.intent import PROMPTS, Embedder


class Model:
    """Stands in for llama.cpp: a 576-wide state per token, counting its calls."""

    calls = 0

    def embed(self, text: str) -> list[np.ndarray]:
        Model.calls += 1
        return [np.full(576, len(text), np.float32)]


class Encoder:
    name = "encoder:1"

    def embed(self, text: str) -> np.ndarray:
        return np.full(384, 1 / np.sqrt(384), np.float32)


def test_a_new_process_reads_every_views_examples_from_the_cache(tmp_path: Path) -> None:
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"weights")
    first = Embedder(Model(), gguf, tmp_path, Encoder())  # type: ignore[arg-type]
    assert first.views == len(PROMPTS) + 1
    for view in range(first.views):
        first.embed(["list the open work", "hello"], view, keep=True)
    first.save()
    Model.calls = 0
    again = Embedder(Model(), gguf, tmp_path, Encoder())  # type: ignore[arg-type]
    encoded = again.embed(["hello"], first.views - 1)
    modelled = again.embed(["list the open work"], 0)
    assert Model.calls == 0
    assert encoded.shape == (1, 384) and modelled.shape == (1, 576)
    assert np.isclose(np.linalg.norm(modelled), 1.0)


def test_a_message_is_not_kept(tmp_path: Path) -> None:
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"weights")
    embedder = Embedder(Model(), gguf, tmp_path, Encoder())  # type: ignore[arg-type]
    embedder.embed(["what is due this week"], 0)
    embedder.save()
    assert not list(tmp_path.glob("local-model-vectors-*.npz"))
