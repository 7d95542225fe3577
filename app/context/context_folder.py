"""The context folder: markdown files ranked by relevance to a message (BM25 over sections).

Files are read once and re-read only when their modification time changes, so gathering
again for an unchanged folder costs a directory listing and the scoring.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from app.db.search import terms

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
    words: Counter[str]
    length: int
    paragraphs: tuple[str, ...]


class ContextFolder:
    """A folder of markdown files searched for each message."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._documents: dict[Path, _Document] = {}

    def search(self, query: str, limit: int = 3, excerpt_chars: int = 600) -> list[FileHit]:
        """Return up to `limit` files that match the query's words, best first."""
        words = terms(query)
        documents = self._load()
        if not words or not documents:
            return []
        average = sum(d.length for d in documents.values()) / len(documents)
        frequency = {w: sum(1 for d in documents.values() if d.words[w]) for w in words}
        scored: list[tuple[float, Path, _Document]] = []
        for path, document in documents.items():
            score = 0.0
            for word in words:
                tf = document.words[word]
                if not tf:
                    continue
                idf = math.log(
                    1 + (len(documents) - frequency[word] + 0.5) / (frequency[word] + 0.5)
                )
                norm = tf + _K1 * (1 - _B + _B * document.length / max(average, 1))
                score += idf * tf * (_K1 + 1) / norm
            if score > 0:
                scored.append((score, path, document))
        scored.sort(key=lambda item: (-item[0], item[2].reference))
        return [
            FileHit(
                path, document.reference, round(score, 3), _excerpt(document, words, excerpt_chars)
            )
            for score, path, document in scored[:limit]
        ]

    def _load(self) -> dict[Path, _Document]:
        if not self.root.is_dir():
            return {}
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
        self._documents = current
        return current

    def _read(self, path: Path, mtime_ns: int) -> _Document:
        with path.open(encoding="utf-8", errors="replace") as fh:
            text = fh.read(MAX_FILE_CHARS)
        reference = path.relative_to(self.root).as_posix()
        words = Counter(w.casefold() for w in _WORD.findall(text))
        # The file name and headings say what a file is about: weight them up.
        headings = re.findall(r"^#+\s*(.+)$", text, flags=re.MULTILINE)
        for heading in [path.stem.replace("-", " ").replace("_", " "), *headings]:
            for word in _WORD.findall(heading):
                words[word.casefold()] += _TITLE_WEIGHT
        paragraphs = tuple(p.strip() for p in re.split(r"\n\s*\n", text) if p.strip())
        return _Document(mtime_ns, reference, words, sum(words.values()), paragraphs)


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
