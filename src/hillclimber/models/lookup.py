"""Lookup decoding: the answer drafted from the prompt's own n-grams and checked by the model
in one batch, so that what a small model copies (a file it read, paths from the prompt) costs
less than a decode step a token.

After each sampled token, `PromptLookup` looks for the answer's last tokens earlier in the
prompt or the answer, and proposes the tokens that followed them there; the model computes the
sampled token and the draft in one batch, and the sampler picks its own token at each position,
keeping the draft only while the two agree. Every token is still the sampler's own (under the
grammar too), and a prompt is computed as without a draft (the same batches, the same rows of
logits); what changes is the batches of the answer, and llama.cpp's CPU kernels do not give
bitwise the same logits for a token computed alone and in a batch (measured here: up to 1.0 in
a logit of the 0.5B; its repacked Q4_K weights are multiplied by one kernel for a single row
and another for four or more). So at temperature 0 an answer is the same unless two tokens are
nearly tied somewhere after a draft; `benchmarks/speed.py` counts how often that happens on
recorded calls.

llama-cpp-python offers this (`draft_model=LlamaPromptLookupDecoding`), but its way turns on
logits for every token computed: each prompt token gets its row of 151,936 floats from the
output layer (a third of the 0.5B's work a token), copied into an n_ctx × vocab array (2.5 GB
at n_ctx 4096; a process of 2.3 GB instead of 0.7 here). Sampling reads llama.cpp's own output
buffer, and only the rows of a batch that checks a draft, or a prompt's last, are ever sampled
from, so `LookupLlama` asks for those rows alone and copies none. Its drafter also looks for 2
tokens or 1, so it drafts 10 tokens after nearly every token, and most are not taken: on 4
recorded write_file answers of the 0.5B it decoded at 0.3-0.6x the speed without it.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

import llama_cpp
import numpy as np
import numpy.typing as npt
from llama_cpp.llama_speculative import LlamaDraftModel

NGRAM = 3
"""The fewest last tokens that must appear earlier for a draft: a shorter run matches by chance
too often for its draft to be taken."""
DRAFT_TOKENS = 15
"""Tokens proposed at most after each sampled one."""
LOOKBACK = 32
"""How far back a match is measured (its length sets the draft's)."""

Tokens = npt.NDArray[np.intc]


class PromptLookup(LlamaDraftModel):
    """The tokens that followed the longest earlier match of the text's last tokens (at least
    `ngram` of them; the latest of equally long ones), as many as the match is long beyond
    `ngram` - 1, up to `draft`; none when the last `ngram` tokens appear nowhere before.

    A draft is checked in one batch, and each token of it costs about half a decode step here
    (2 cores: compute, not memory, bounds a step), so only a draft most of which is taken
    pays. The length of the match says how likely that is: a copy in progress matches over
    everything copied so far, so its drafts grow 1, 3, 7, 15 as they are taken, and a chance
    match of 3 tokens risks one."""

    def __init__(
        self, ngram: int = NGRAM, draft: int = DRAFT_TOKENS, lookback: int = LOOKBACK
    ) -> None:
        self.ngram = ngram
        self.draft = draft
        self.lookback = lookback

    def __call__(self, input_ids: Tokens, /, **kwargs: Any) -> Tokens:
        length = len(input_ids)
        if length <= self.ngram:
            return np.array([], dtype=np.intc)
        windows = np.lib.stride_tricks.sliding_window_view(input_ids[: length - 1], self.ngram)
        ends = np.flatnonzero((windows == input_ids[length - self.ngram :]).all(axis=1))
        if not len(ends):
            return np.array([], dtype=np.intc)
        ends += self.ngram - 1  # the last token of each match
        back = np.arange(min(self.lookback, length))
        left = ends[:, None] - back[None, :]
        same = (left >= 0) & (input_ids[np.maximum(left, 0)] == input_ids[length - 1 - back])
        matched = same.cumprod(axis=1).sum(axis=1)
        best = int(np.flatnonzero(matched == matched.max())[-1])
        size = min(self.draft, int(matched[best]) - self.ngram + 1)
        return input_ids[ends[best] + 1 : ends[best] + 1 + size].copy()


class LookupLlama(llama_cpp.Llama):
    """A `Llama` that drafts with `drafter` when one is given, and counts each answer's prompt
    and sampled tokens either way."""

    def __init__(self, *args: Any, drafter: PromptLookup | None, **kwargs: Any) -> None:
        super().__init__(*args, draft_model=drafter, **kwargs)
        self.rows = 1 + drafter.draft if drafter else 1
        """The rows of logits a batch that checks a draft needs: its last token's, and each
        drafted one's."""
        self.prompted = False
        """Whether this answer's prompt is computed: every batch after it checks a draft."""
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
        self.prompted = False
        for token in super().generate(tokens, *args, **kwargs):
            if not llama_cpp.llama_vocab_is_eog(self._model.vocab, token):
                self.answer_tokens += 1
            yield token

    def eval(self, tokens: Sequence[int]) -> None:
        """As `Llama.eval`, with logits for the last token of a prompt (as without a draft:
        the same rows, so the same numbers) and for each token of a batch that checks a
        draft, and none copied into `scores`."""
        self.batches += 1
        if self.draft_model is None:
            super().eval(tokens)
            return
        rows, self.prompted = (self.rows if self.prompted else 1), True
        self._ctx.kv_cache_seq_rm(-1, self.n_tokens, -1)
        for start in range(0, len(tokens), self.n_batch):
            batch = list(tokens[start : start + self.n_batch])
            self._batch.set_batch(batch=batch, n_past=self.n_tokens, logits_all=False)
            for row in range(max(len(batch) - rows, 0), len(batch)):
                self._batch.batch.logits[row] = True
            self._ctx.decode(self._batch)
            self.input_ids[self.n_tokens : self.n_tokens + len(batch)] = batch
            self.n_tokens += len(batch)
            self._requires_eval = False
