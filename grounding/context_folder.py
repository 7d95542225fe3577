"""The context folder: markdown files ranked by relevance to a message (BM25, via `bm25s`).

Files are read once and re-read only when their modification time changes; the BM25 index
is rebuilt only when a file was added, changed or removed, so gathering again for an
unchanged folder costs a directory listing and the scoring.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import bm25s

from core.terms import terms

MAX_FILES = 500
MAX_FILE_CHARS = 200_000
"""A bigger file is read up to this many characters."""
_K1 = 1.2
_B = 0.75
_TITLE_WEIGHT = 3
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class FileHit:
    """A ranked file and its most relevant passage."""

    path: Path
    reference: str
    """Path relative to the folder, used to cite the file."""
    score: float
    excerpt: str


@dataclass(frozen=True)
class _Document:
    mtime_ns: int
    reference: str
    token_ids: tuple[int, ...]
    """The file's words, then its name's and headings' words `_TITLE_WEIGHT` times each, as
    ids in the folder's vocabulary."""
    paragraphs: tuple[str, ...]


class _Index:
    """A BM25 index over one version of the folder's files."""

    def __init__(self, documents: list[_Document], vocabulary: dict[str, int]) -> None:
        self.documents = documents
        # Lucene's idf with the classic (k1 + 1) term-frequency saturation.
        self._bm25 = bm25s.BM25(k1=_K1, b=_B, method="atire", idf_method="lucene")
        # Word ids kept from each file's reading: a rebuild does not tokenize again.
        corpus = ([list(d.token_ids) for d in documents], dict(vocabulary))
        self._bm25.index(corpus, create_empty_token=False, show_progress=False)

    def scores(self, words: list[str]) -> list[tuple[float, _Document]]:
        """Every document that contains at least one of the words, with its score."""
        known = [w for w in words if w in self._bm25.vocab_dict]
        if not known:
            return []
        scores = self._bm25.get_scores(known)
        return [(float(scores[i]), self.documents[i]) for i in (scores > 0).nonzero()[0]]


class ContextFolder:
    """A folder of markdown files searched for each message."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._documents: dict[Path, _Document] = {}
        self._index: _Index | None = None
        self._vocabulary: dict[str, int] = {}
        """Every word read from the folder, by id (ids stay put while the process runs)."""

    def search(self, query: str, limit: int = 3, excerpt_chars: int = 600) -> list[FileHit]:
        """Return up to `limit` files that match the query's words, best first."""
        words = terms(query)
        if not words:
            return []
        index = self._load()
        if index is None:
            return []
        scored = sorted(index.scores(words), key=lambda item: (-item[0], item[1].reference))
        return [
            FileHit(
                self.root / document.reference,
                document.reference,
                round(score, 3),
                _excerpt(document, words, excerpt_chars),
            )
            for score, document in scored[:limit]
        ]

    def _load(self) -> _Index | None:
        """The index over the folder as it is now, rebuilt only when a file changed."""
        if not self.root.is_dir():
            self._documents, self._index = {}, None
            return None
        paths = sorted(self.root.rglob("*.md"))[:MAX_FILES]
        current: dict[Path, _Document] = {}
        for path in paths:
            try:
                mtime = path.stat().st_mtime_ns
            except OSError:
                continue  # removed between the listing and now
            cached = self._documents.get(path)
            if cached is None or cached.mtime_ns != mtime:
                cached = self._read(path, mtime)
            current[path] = cached
        unchanged = current.keys() == self._documents.keys() and all(
            current[p] is self._documents[p] for p in current
        )
        if not unchanged or self._index is None:
            documents = [d for d in current.values() if d.token_ids]
            self._index = _Index(documents, self._vocabulary) if documents else None
        self._documents = current
        return self._index

    def _read(self, path: Path, mtime_ns: int) -> _Document:
        with path.open(encoding="utf-8", errors="replace") as fh:
            text = fh.read(MAX_FILE_CHARS)
        reference = path.relative_to(self.root).as_posix()
        tokens = [w.casefold() for w in _WORD.findall(text)]
        # The file name and headings say what a file is about: weight them up.
        headings = re.findall(r"^#+\s*(.+)$", text, flags=re.MULTILINE)
        for heading in [path.stem.replace("-", " ").replace("_", " "), *headings]:
            tokens += [w.casefold() for w in _WORD.findall(heading)] * _TITLE_WEIGHT
        paragraphs = tuple(p.strip() for p in re.split(r"\n\s*\n", text) if p.strip())
        ids = tuple(self._vocabulary.setdefault(t, len(self._vocabulary)) for t in tokens)
        return _Document(mtime_ns, reference, ids, paragraphs)


def _excerpt(document: _Document, words: list[str], limit: int) -> str:
    """The paragraphs with the most query words, in file order, up to `limit` characters."""

    def hits(paragraph: str) -> int:
        found = {w.casefold() for w in _WORD.findall(paragraph)}
        return sum(1 for w in words if w in found)

    ranked = sorted(range(len(document.paragraphs)), key=lambda i: -hits(document.paragraphs[i]))
    chosen: list[int] = []
    used = 0
    for index in ranked:
        paragraph = document.paragraphs[index]
        if chosen and (hits(paragraph) == 0 or used + len(paragraph) > limit):
            break
        chosen.append(index)
        used += len(paragraph)
    text = "\n\n".join(document.paragraphs[i] for i in sorted(chosen))
    return text if len(text) <= limit else text[: limit - 1] + "…"
