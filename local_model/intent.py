"""What a message asks for: a classifier over the examples each class declares.

A class is a tool or a kind of small talk. Three votes: a ridge classifier over the model's
embedding under each of two prompts, and the nearest example by TF-IDF (survives typos).
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import math
import os
import re
import tomllib
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)

TEXTS = tomllib.loads((Path(__file__).parent / "texts.toml").read_text(encoding="utf-8"))
"""What the model says and is shown (`texts.toml`)."""
_TALK = TEXTS["small_talk"]
SMALL_TALK = {kind: tuple(entry["examples"]) for kind, entry in _TALK.items()}
"""Kinds of small talk and their examples, each answered without a lookup."""
SMALL_TALK_ANSWERS = {kind: str(entry["answer"]) for kind, entry in _TALK.items()}
HOW = "how_it_works"  # the small talk that asks how something works: a tool's manual answers
FOLLOW_UP = {kind: tuple(examples) for kind, examples in TEXTS["follow_up"].items()}
"""Messages that go on from the ask before ("and for Globex?") and requests of their own."""
PROMPTS = (
    'This request: "{}" means in one word:"',
    "<|im_start|>user\n{}<|im_end|>\n<|im_start|>assistant\nThe user wants me to",
)
"""How a message is shown to the model before its last hidden state is read: asked for its
meaning, a decoder's state sums the message up far better than an average over its words."""
RIDGE = 0.3
"""Ridge penalty of the embedding classifiers (chosen on the tuning asks)."""
EMBEDDING_TEMPERATURE, NEAREST_TEMPERATURE = 0.05, 0.03
"""How sharp each vote is: five-fold cross-validated on the tuning asks' first steps."""
HEAD_WORDS = 8  # how fast later words weigh less in the nearest example (on the tuning asks)
RECENT = 256  # messages' vectors kept: a message is ranked among tools and each pair of classes
TRAINED = 8
"""Sets of classes whose classifier is kept (tens of MB each: the examples' TF-IDF rows)."""
_WORD = re.compile(r"[a-z0-9']+")


class Embedder:
    """Embeddings under each of `PROMPTS`, kept on disk: only a new example costs anything."""

    def __init__(self, llama: Any, model: Path, cache: Path | None) -> None:
        """Use `llama` (loaded with embeddings on, unpooled) for every vector."""
        self._llama = llama
        key = hashlib.sha1(f"{model.name}:{model.stat().st_size}:{PROMPTS}".encode())
        self._file = cache / f"local-model-vectors-{key.hexdigest()[:12]}.npz" if cache else None
        self._vectors, self._recent = dict[str, np.ndarray](), dict[str, np.ndarray]()
        self._unsaved = 0
        if self._file is not None and self._file.is_file():
            try:
                with np.load(self._file) as saved:
                    self._vectors = dict(zip(saved["names"], saved["vectors"], strict=True))
            except (OSError, ValueError, KeyError):
                logger.warning("ignoring the unreadable vector cache %s", self._file, exc_info=True)

    def embed(self, texts: Sequence[str], prompt: int, *, keep: bool = False) -> np.ndarray:
        """Unit vectors of `texts` under `PROMPTS[prompt]`, a row each; `keep`: examples, saved."""
        rows = []
        for text in texts:
            name = hashlib.sha1(f"{prompt}:{text}".encode()).hexdigest()
            vector = self._vectors.get(name, self._recent.get(name))
            if vector is None:
                tokens = self._llama.embed(PROMPTS[prompt].format(text))
                vector = _unit(np.asarray(tokens[-1:], np.float32))[0]  # the last token's state
                # a message is ranked among several sets of classes: kept a while, not saved
                if not keep and len(self._recent) >= RECENT:
                    self._recent = {}
                (self._vectors if keep else self._recent)[name] = vector
                self._unsaved += keep
            rows.append(vector)
        return np.vstack(rows)

    def save(self) -> None:
        """Write new vectors to the cache; a cache that cannot be written is only logged."""
        if self._file is None or not self._unsaved:
            return
        try:
            self._file.parent.mkdir(parents=True, exist_ok=True)
            vectors = np.vstack(list(self._vectors.values()))  # in the order of their names
            # Written aside and renamed: another process may be reading it.
            partial = self._file.with_suffix(f".{os.getpid()}.npz")
            np.savez(partial, names=np.array(list(self._vectors)), vectors=vectors)
            partial.replace(self._file)
            self._unsaved = 0
        except OSError:
            logger.warning("cannot write the vector cache %s", self._file, exc_info=True)


@dataclass(frozen=True)
class _Classifier:
    labels: tuple[str, ...]
    owners: np.ndarray
    """The label index of each example."""
    centers: tuple[np.ndarray, ...]
    weights: tuple[np.ndarray, ...]
    vocabulary: dict[str, int]
    idf: np.ndarray
    documents: np.ndarray


class Intents:
    """Ranks classes (tools, kinds of small talk) for a message, trained once per set of them."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._trained: dict[tuple[tuple[str, tuple[str, ...]], ...], _Classifier] = {}

    def rank(self, text: str, classes: Mapping[str, Sequence[str]]) -> list[tuple[str, float]]:
        """Every class with its probability for `text`, most likely first."""
        # In any order: the offered tools come ranked for each message, the classes do not.
        key = tuple(sorted((name, tuple(examples)) for name, examples in classes.items()))
        # the latest last: the least recently used goes first
        self._trained[key] = model = self._trained.pop(key, None) or self._train(key)
        while len(self._trained) > TRAINED:
            del self._trained[next(iter(self._trained))]
        votes = [_softmax(_nearest(model, text) / NEAREST_TEMPERATURE)]
        for prompt, (center, weights) in enumerate(zip(model.centers, model.weights, strict=True)):
            vector = _unit(self._embedder.embed([text], prompt) - center)
            votes.append(_softmax(_with_bias(vector) @ weights / EMBEDDING_TEMPERATURE)[0])
        probability = np.mean(votes, axis=0)
        order = np.argsort(-probability, kind="stable")
        return [(model.labels[i], float(probability[i])) for i in order]

    def _train(self, key: tuple[tuple[str, tuple[str, ...]], ...]) -> _Classifier:
        labels = tuple(name for name, _ in key)
        examples = tuple(example for _, texts in key for example in texts)
        owners = np.array([i for i, (_, texts) in enumerate(key) for _ in texts])
        targets = np.eye(len(labels))[owners]
        centers, weights = [], []
        for prompt in range(len(PROMPTS)):
            vectors = self._embedder.embed(examples, prompt, keep=True)
            centers.append(center := vectors.mean(axis=0))
            design = _with_bias(_unit(vectors - center))
            gram = design.T @ design + RIDGE * np.eye(design.shape[1])
            weights.append(np.linalg.solve(gram, design.T @ targets))
        self._embedder.save()
        counts = Counter(t for example in examples for t in _terms(example))
        vocabulary = {term: i for i, term in enumerate(counts)}
        idf = np.array([math.log((1 + len(examples)) / (1 + counts[t])) + 1 for t in vocabulary])
        documents = np.vstack([_tfidf(e, vocabulary, idf) for e in examples])
        return _Classifier(labels, owners, (*centers,), (*weights,), vocabulary, idf, documents)


def _nearest(model: _Classifier, text: str) -> np.ndarray:
    """Each class's best cosine similarity between `text` and one of its examples."""
    similarity = model.documents @ _tfidf(text, model.vocabulary, model.idf)
    best = np.zeros(len(model.labels))
    np.maximum.at(best, model.owners, similarity)
    return best


def _terms(text: str) -> dict[str, float]:
    """Words, word pairs and the words' 3- and 4-grams, weighing less the later they come.

    A request's head says what it asks, the rest what about ("make a note that Acme wants …").
    """
    words, terms = _WORD.findall(text.casefold()), defaultdict[str, float](float)
    for i, (word, after) in enumerate(itertools.zip_longest(words, words[1:])):
        grams = [f"<{word}>"[j : j + n] for n in (3, 4) for j in range(len(word) - n + 3)]
        for term in [word, *([f"{word} {after}"] if after else []), *grams]:
            terms[term] += 1 / (1 + i / HEAD_WORDS)
    return terms


def _tfidf(text: str, vocabulary: dict[str, int], idf: np.ndarray) -> np.ndarray:
    row = np.zeros(len(vocabulary))
    for term, weight in ((t, w) for t, w in _terms(text).items() if t in vocabulary):
        row[vocabulary[term]] = math.log1p(weight)
    return (weighted := row * idf) / (np.linalg.norm(weighted) or 1.0)


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0, 1.0, norms)


def _with_bias(rows: np.ndarray) -> np.ndarray:
    return np.hstack([rows, np.ones((rows.shape[0], 1))])


def _softmax(scores: np.ndarray) -> np.ndarray:
    shifted = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)
