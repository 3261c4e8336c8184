"""The embedded default: llama.cpp in-process through its Python binding.

One `Llama` per model file and settings per process, shared by concurrent trials behind a lock
(llama.cpp contexts are not thread-safe). The prompt prefix is reused across calls: llama.cpp
keeps the last prompt's KV state, so a loop that re-sends the same system prompt (or the same
prompt under another grammar) only pays for what changed. Constrained output uses llama.cpp's
JSON-schema grammar, so a tool call is always well-formed JSON.

No `LlamaRAMCache`: each state it keeps also holds a copy of the logits (n_tokens × vocab
floats, up to 311 MB for Qwen at 512 rows) that its capacity does not count, so a long run
grew to 24 GB and was killed; and saving and restoring those copies cost more than the
prefix it saved. What is kept instead is one thing: across a question asked aside
(`CompletionRequest.aside`: a computed answer, a re-plan), the main prompt's
KV cells alone (no logits: the next prompt always computes at least its last token), put back
after it — without them the loop's next prompt was computed again whole (3,000 tokens, about
47 s of the 1.5B on 2 cores) for a question of 400.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import functools
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hillclimber import process
from hillclimber.errors import BadResponse, ContextExceeded, ModelTimeout, ModelUnavailable
from hillclimber.models import embedded
from hillclimber.models.base import (
    Completion,
    CompletionRequest,
    FinishReason,
    ModelProfile,
    Usage,
    time_left,
)
from hillclimber.models.repetition import MAX_PERIOD, repeating

if TYPE_CHECKING:
    from llama_cpp.llama_grammar import LlamaGrammar

    from hillclimber.models.lookup import LookupLlama

DEFAULT_THREADS = 2


@dataclass
class _Loaded:
    llm: LookupLlama
    lock: threading.Lock


_loaded: dict[tuple[str, int, int, bool], _Loaded] = {}
_load_lock = threading.Lock()


@atexit.register
def _close_all() -> None:
    """Free the models before the interpreter tears down llama_cpp's module globals (freeing
    them later fails with an error printed at exit)."""
    with _load_lock:
        for state in _loaded.values():
            state.llm.close()
        _loaded.clear()


def _llama_module() -> Any:
    try:
        import llama_cpp
    except ImportError as err:
        raise ModelUnavailable(
            "the embedded model needs llama-cpp-python: pip install 'hillclimber[local]' "
            "(bash scripts/install.sh does it)"
        ) from err
    return llama_cpp


def load(path: Path, n_ctx: int, threads: int, lookup: bool = False) -> _Loaded:
    """The shared instance for this file and settings, loaded on first use; with `lookup`,
    drafting from the prompt (`lookup.py`)."""
    key = (str(path), n_ctx, threads, lookup)
    with _load_lock:
        if key not in _loaded:
            _llama_module()
            from hillclimber.models.lookup import LookupLlama, PromptLookup

            llm = LookupLlama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=threads,
                n_threads_batch=threads,
                seed=0,
                verbose=False,
                drafter=PromptLookup() if lookup else None,
            )
            _loaded[key] = _Loaded(llm, threading.Lock())
        return _loaded[key]


@contextlib.contextmanager
def kept_across(llm: LookupLlama) -> Iterator[None]:
    """The prompt state `llm` holds now (its KV cells and the tokens they are of), put back
    after the block; where llama.cpp cannot put it back, none is kept and the next prompt is
    computed whole, as without this."""
    llama_cpp = _llama_module()
    ctx = llm._ctx.ctx
    held = llm.n_tokens
    tokens = llm.input_ids[:held].copy()
    size = llama_cpp.llama_state_seq_get_size(ctx, 0) if held else 0
    cells = (ctypes.c_uint8 * size)()
    saved = llama_cpp.llama_state_seq_get_data(ctx, cells, size, 0) if size else 0
    try:
        yield
    finally:
        if saved and llama_cpp.llama_state_seq_set_data(ctx, cells, saved, 0) == saved:
            llm.input_ids[:held] = tokens
            llm.n_tokens = held
            llm._requires_eval = True  # no logits kept: the next prompt computes its last token
        else:
            llm.n_tokens = 0


@contextlib.contextmanager
def _nothing_kept(llm: LookupLlama) -> Iterator[None]:
    yield


@functools.lru_cache(maxsize=32)
def _grammar(schema: str) -> LlamaGrammar:
    grammar: LlamaGrammar = _llama_module().LlamaGrammar.from_json_schema(schema, verbose=False)
    return grammar


class LocalModel:
    def __init__(
        self,
        name: str = embedded.DEFAULT_MODEL,
        *,
        n_ctx: int | None = None,
        threads: int = DEFAULT_THREADS,
        path: Path | None = None,
        lookup: bool | None = None,
    ) -> None:
        info = embedded.lookup(name) if path is None else None
        self.name = name
        self.path = path or embedded.require(name)
        self.n_ctx = n_ctx or (info.n_ctx if info else 4096)
        self.threads = threads
        self.lookup = (info.lookup if info else False) if lookup is None else lookup
        """Lookup decoding (`lookup.py`); not given: the embedded model's own default."""
        self._state = load(self.path, self.n_ctx, threads, self.lookup)
        llm = self._state.llm
        self.profile = ModelProfile(
            name=f"local:{name}",
            context_window=self.n_ctx,
            supports_constraint=True,
            tokenizer=lambda text: len(llm.tokenize(text.encode(), add_bos=False, special=True)),
        )

    def complete(self, request: CompletionRequest) -> Completion:
        kwargs: dict[str, Any] = {
            "messages": [m.model_dump() for m in request.messages],
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "stop": request.stop or None,
        }
        if request.seed is not None:
            kwargs["seed"] = request.seed
        if request.constraint is not None:
            kwargs["grammar"] = _grammar(json.dumps(request.constraint.json_schema))
        time_left(request, None)
        kept = kept_across if request.aside else _nothing_kept
        with self._state.lock, kept(self._state.llm):
            evaluated_before = self._prompt_tokens_evaluated()
            start = time.monotonic()
            try:
                text, finish, prompt_tokens, completion_tokens = self._generate(
                    kwargs, request.deadline
                )
            except ValueError as err:
                if "exceed context window" in str(err):
                    raise ContextExceeded(str(err)) from err
                raise BadResponse(f"llama.cpp: {err}") from err
            latency = time.monotonic() - start
            evaluated = self._prompt_tokens_evaluated() - evaluated_before
        return Completion(
            text=text,
            finish_reason=finish,
            usage=Usage(
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                cached_prompt_tokens=max(prompt_tokens - evaluated, 0) if evaluated >= 0 else None,
            ),
            latency_sec=latency,
            model=self.profile.name,
            constrained=request.constraint is not None,
        )

    def _generate(
        self, kwargs: dict[str, Any], deadline: float | None
    ) -> tuple[str, FinishReason, int, int]:
        """Stream the answer, stopping early once it repeats itself, with ModelTimeout once
        the deadline passes and with Stopped once the run stops (between two tokens). Returns
        the text, why it ended, and the prompt and answer token counts as the model counted
        them."""
        llm = self._state.llm
        pieces: list[str] = []
        finish: FinishReason = "stop"
        answered = False
        stream: Any = llm.create_chat_completion(**kwargs, stream=True)
        try:
            for chunk in stream:
                if deadline is not None and time.monotonic() > deadline:
                    raise ModelTimeout("the agent's time ran out while the model was answering")
                if process.stopping():
                    raise process.Stopped("the run is stopping")
                answered = True
                choice: dict[str, Any] = chunk["choices"][0]
                piece: str | None = choice["delta"].get("content")
                if piece:
                    pieces.append(piece)
                    if repeating("".join(pieces[-MAX_PERIOD * 3 :])):
                        finish = "repeating"
                        break
                if choice.get("finish_reason") == "length":
                    finish = "length"
        finally:
            stream.close()
        if not answered:
            raise BadResponse("llama.cpp returned no answer")
        return "".join(pieces), finish, llm.prompt_tokens, llm.answer_tokens

    def _prompt_tokens_evaluated(self) -> int:
        """llama.cpp's running count of prompt tokens it actually processed."""
        llama_cpp = _llama_module()
        try:
            data = llama_cpp.llama_perf_context(self._state.llm._ctx.ctx)
            return int(data.n_p_eval)
        except (AttributeError, TypeError):
            return -1
