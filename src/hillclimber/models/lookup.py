"""Lookup decoding: the answer drafted from the prompt's own n-grams and checked by the model
in one batch, so that what a small model copies (a file it read, paths from the prompt) costs
less than a decode step a token.

After each sampled token, `PromptLookup` looks for the answer's last few tokens earlier in the
prompt or the answer, and proposes the tokens that followed them there; the model computes the
sampled token and the draft in one batch, and the sampler picks its own token at each position,
keeping the draft only while the two agree. Every token is still the sampler's own (under the
grammar too); what changes is the batches the model computes, and llama.cpp's CPU kernels do
not give bitwise the same logits for a token computed alone and in a batch (measured here:
differences up to 1.0 in a logit of the 0.5B). At temperature 0 the answers are the same unless
two tokens are nearly tied; `benchmarks/speed.py` counts how often they differ on recorded calls.

llama-cpp-python offers this (`draft_model=LlamaPromptLookupDecoding`), but its way turns on
logits for every token computed: each prompt token gets its row of 151,936 floats from the
output layer (a third of the 0.5B's work a token), copied into an n_ctx × vocab array (2.5 GB
at n_ctx 4096; a process of 2.3 GB instead of 0.7 here). Sampling reads llama.cpp's own output
buffer, and only the rows of a batch's last 1 + draft tokens are ever sampled from, so
`LookupLlama` asks for those rows alone and copies none. Its drafter also looks for 2 tokens
or 1, so it drafts after nearly every token, and a draft that is not taken costs a batch.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

import llama_cpp
import numpy as np
import numpy.typing as npt
from llama_cpp.llama_speculative import LlamaDraftModel

DRAFT_TOKENS = 7
"""Tokens proposed at most after each sampled one."""
NGRAM = (4, 3)
"""The runs of last tokens looked up, longest first: a shorter one matches by chance too often
for its draft to be taken."""

Tokens = npt.NDArray[np.intc]


class PromptLookup(LlamaDraftModel):
    """The tokens that followed the last occurrence of the text's last `n` tokens, for the
    longest `n` of `ngrams` found; none when none is."""

    def __init__(self, ngrams: Sequence[int] = NGRAM, draft: int = DRAFT_TOKENS) -> None:
        self.ngrams = tuple(ngrams)
        self.draft = draft

    def __call__(self, input_ids: Tokens, /, **kwargs: Any) -> Tokens:
        length = len(input_ids)
        for n in self.ngrams:
            if length <= n:
                continue
            windows = np.lib.stride_tricks.sliding_window_view(input_ids[: length - 1], n)
            found = np.flatnonzero((windows == input_ids[length - n :]).all(axis=1))
            if len(found):
                start = int(found[-1]) + n
                return input_ids[start : start + self.draft].copy()
        return np.array([], dtype=np.intc)


class LookupLlama(llama_cpp.Llama):
    """A `Llama` that drafts with `drafter` when one is given, and counts each answer's prompt
    and sampled tokens either way."""

    def __init__(self, *args: Any, drafter: PromptLookup | None, **kwargs: Any) -> None:
        super().__init__(*args, draft_model=drafter, **kwargs)
        self.rows = 1 + drafter.draft if drafter else 1
        """The rows of logits a batch needs: its last token's, and each drafted one's."""
        self.prompt_tokens = 0
        """Of the last answer: its prompt, whole (the part reused from the last included)."""
        self.answer_tokens = 0
        """Of the last answer: the tokens the sampler chose, an end-of-turn token not counted
        (it is no text)."""
        self.batches = 0
        """Of the last answer: the batches computed, its prompt's included."""

    def generate(
        self, tokens: Sequence[int], *args: Any, **kwargs: Any
    ) -> Generator[int, Sequence[int] | None, None]:
        self.prompt_tokens = len(tokens)
        self.answer_tokens = self.batches = 0
        for token in super().generate(tokens, *args, **kwargs):
            if not llama_cpp.llama_vocab_is_eog(self._model.vocab, token):
                self.answer_tokens += 1
            yield token

    def eval(self, tokens: Sequence[int]) -> None:
        """As `Llama.eval`, with logits for a batch's last `rows` tokens only (a batch that
        checks a draft is never longer; of a prompt only the last is sampled from), and none
        copied into `scores`."""
        self.batches += 1
        if self.draft_model is None:
            super().eval(tokens)
            return
        self._ctx.kv_cache_seq_rm(-1, self.n_tokens, -1)
        for start in range(0, len(tokens), self.n_batch):
            batch = list(tokens[start : start + self.n_batch])
            self._batch.set_batch(batch=batch, n_past=self.n_tokens, logits_all=False)
            for row in range(max(len(batch) - self.rows, 0), len(batch)):
                self._batch.batch.logits[row] = True
            self._ctx.decode(self._batch)
            self.input_ids[self.n_tokens : self.n_tokens + len(batch)] = batch
            self.n_tokens += len(batch)
            self._requires_eval = False
