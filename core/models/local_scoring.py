"""Log-likelihoods of short continuations under the local llama.cpp model.

Stage one of the local model's answer (reply, or which tool) compares how likely the model
finds a text after different prefixes; this module computes those numbers, evaluating only
what the context's KV cache does not already hold.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np


class ContinuationScorer:
    """Scores continuations of prompts with one `llama_cpp.Llama`, reusing its KV cache.

    `Llama`'s own bookkeeping (`input_ids`, `n_tokens`) is kept in step with what is decoded
    here, so a completion that follows reuses the common prefix as it would after its own
    calls. Callers serialize access: a llama.cpp context is not thread-safe.
    """

    def __init__(self, llama: Any) -> None:
        """Wrap a loaded `llama_cpp.Llama`.

        Args:
            llama: The model, loaded with `logits_all=False` (logits are read per position).
        """
        import llama_cpp

        self._llama = llama
        self._n_vocab = int(llama.n_vocab())
        self._n_batch = int(llama.n_batch)
        self._batch = llama_cpp.llama_batch_init(self._n_batch, 0, 1)
        weakref.finalize(self, llama_cpp.llama_batch_free, self._batch)

    def tokens(self, text: str) -> list[int]:
        """Tokenize `text`, reading chat-template markers as special tokens."""
        return list(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def loglik(self, prefix: list[int], continuation: list[int]) -> float:
        """Return log P(continuation | prefix) in nats.

        Args:
            prefix: The conditioning tokens; at least one.
            continuation: The tokens whose probability is summed; at least one.

        Returns:
            The sum of the continuation tokens' log-probabilities.
        """
        if not prefix or not continuation:
            raise ValueError("loglik needs a non-empty prefix and continuation")
        sequence = prefix + continuation
        first_wanted = len(prefix) - 1  # the position whose logits predict continuation[0]
        start = min(self._cached_prefix(sequence), first_wanted)
        total = 0.0
        # The last token is never decoded: only the logits before it are needed.
        end = len(sequence) - 1
        for chunk_start in range(start, end, self._n_batch):
            chunk = sequence[chunk_start : min(end, chunk_start + self._n_batch)]
            rows = self._decode(chunk, chunk_start, first_wanted)
            for position, row in rows:
                total += float(row[sequence[position + 1]])
        return total

    def _cached_prefix(self, sequence: list[int]) -> int:
        """How many leading tokens of `sequence` the KV cache already holds."""
        held = self._llama.input_ids[: self._llama.n_tokens]
        limit = min(len(held), len(sequence))
        if limit == 0:
            return 0
        mismatch = np.flatnonzero(held[:limit] != np.asarray(sequence[:limit], dtype=held.dtype))
        return int(mismatch[0]) if mismatch.size else limit

    def _decode(
        self, chunk: list[int], n_past: int, first_wanted: int
    ) -> list[tuple[int, np.ndarray]]:
        """Decode `chunk` at position `n_past`; return log-softmax rows of wanted positions."""
        import llama_cpp

        llama = self._llama
        ctx = llama.ctx
        llama_cpp.llama_memory_seq_rm(llama_cpp.llama_get_memory(ctx), 0, n_past, -1)
        batch = self._batch
        batch.n_tokens = len(chunk)
        wanted = []
        for i, token in enumerate(chunk):
            batch.token[i] = token
            batch.pos[i] = n_past + i
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = 0
            keep = n_past + i >= first_wanted
            batch.logits[i] = keep
            if keep:
                wanted.append(i)
        code = llama_cpp.llama_decode(ctx, batch)
        # What the cache holds is recorded before a failure is raised, so the next call
        # does not trust cells the failed decode may have left half written.
        llama.n_tokens = n_past
        if code != 0:
            raise RuntimeError(f"llama_decode returned {code}")
        llama.input_ids[n_past : n_past + len(chunk)] = chunk
        llama.n_tokens = n_past + len(chunk)
        rows = []
        for i in wanted:
            logits = np.ctypeslib.as_array(
                llama_cpp.llama_get_logits_ith(ctx, i), shape=(self._n_vocab,)
            ).astype(np.float64)
            shifted = logits - logits.max()
            rows.append((n_past + i, shifted - np.log(np.exp(shifted).sum())))
        return rows
