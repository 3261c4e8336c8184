"""Model back ends behind one protocol, chosen by a spec string:

local                       the embedded default (qwen2.5-coder-0.5b, llama.cpp in-process)
local:qwen2.5-coder-1.5b    another embedded model
openai:NAME                 any OpenAI-compatible endpoint (--base-url)
llamacpp:NAME               llama.cpp's server (default http://127.0.0.1:8080/v1)
ollama:NAME                 Ollama's native API (default http://127.0.0.1:11434)
fm                          Apple's on-device model: the SDK on macOS, else the bridge
fm:sdk / fm:bridge          one route explicitly
scripted:PATH               canned answers from a file (tests, config checks)
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from hillclimber.errors import HillclimberError
from hillclimber.models.base import (
    Completion,
    CompletionRequest,
    Message,
    Model,
    ModelProfile,
    OutputConstraint,
    Usage,
)
from hillclimber.models.scripted import WINDOW as SCRIPTED_WINDOW
from hillclimber.models.scripted import ScriptedModel

__all__ = [
    "Completion",
    "CompletionRequest",
    "Message",
    "Model",
    "ModelConfig",
    "ModelProfile",
    "OutputConstraint",
    "ScriptedModel",
    "Usage",
    "make_model",
]

LLAMACPP_URL = "http://127.0.0.1:8080/v1"
DEFAULT_REMOTE_WINDOW = 8192


class ModelConfig(BaseModel):
    """Which model, and how to reach it. Recorded with every run."""

    model_config = ConfigDict(extra="forbid")

    spec: str = "local"
    """`local`, `local:NAME`, `openai:NAME`, `llamacpp:NAME`, `ollama:NAME`, `fm`, ..."""
    base_url: str | None = None
    context_window: int | None = Field(default=None, gt=256)
    """Tokens for prompt and answer; the back end's own value when not given."""
    threads: int = Field(default=2, ge=1)
    """CPU threads for the embedded model."""
    lookup: bool | None = None
    """Lookup decoding for the embedded model: drafts from the prompt's own n-grams, checked
    by the model in one batch (`models/lookup.py`). None: the embedded model's own default
    (on where benchmarks/speed.py showed it pays)."""
    timeout_sec: float = Field(default=300.0, gt=0)
    """Per request, for HTTP back ends."""


def window_of(config: ModelConfig) -> int:
    """The tokens of prompt and answer the model gets: the setting's, else its back end's
    default (an embedded model's own, Apple's 4,096, a remote server's 8,192)."""
    if config.context_window:
        return config.context_window
    kind, _, name = config.spec.partition(":")
    if kind == "local":
        from hillclimber.models import embedded

        known = embedded.CATALOG.get(name or embedded.DEFAULT_MODEL)
        return known.n_ctx if known else SCRIPTED_WINDOW
    if kind == "fm":
        from hillclimber.models.fm import FM_CONTEXT_WINDOW

        return FM_CONTEXT_WINDOW
    return SCRIPTED_WINDOW if kind == "scripted" else DEFAULT_REMOTE_WINDOW


def make_model(config: ModelConfig | str) -> Model:
    """The model a spec names; errors name the spec and what is missing."""
    if isinstance(config, str):
        config = ModelConfig(spec=config)
    kind, _, name = config.spec.partition(":")
    if kind == "local":
        from hillclimber.models.local import LocalModel

        return LocalModel(
            name or "qwen2.5-coder-0.5b",
            n_ctx=config.context_window,
            threads=config.threads,
            lookup=config.lookup,
        )
    if kind in ("openai", "llamacpp"):
        from hillclimber.models.openai_compat import OpenAICompatModel

        if not name:
            raise HillclimberError(f"model '{config.spec}': give a model name, e.g. {kind}:qwen")
        url = config.base_url or (LLAMACPP_URL if kind == "llamacpp" else None)
        if url is None:
            raise HillclimberError(f"model '{config.spec}' needs --base-url")
        profile = ModelProfile(
            name=config.spec,
            context_window=window_of(config),
            supports_constraint=True,
        )
        return OpenAICompatModel(name, url, profile, timeout=config.timeout_sec)
    if kind == "ollama":
        from hillclimber.models.ollama import DEFAULT_URL, OllamaModel

        if not name:
            raise HillclimberError("model 'ollama:' needs a name, e.g. ollama:qwen2.5-coder:3b")
        profile = ModelProfile(
            name=config.spec,
            context_window=window_of(config),
            supports_constraint=True,
        )
        return OllamaModel(
            name, profile, base_url=config.base_url or DEFAULT_URL, timeout=config.timeout_sec
        )
    if kind == "fm":
        from hillclimber.models import fm

        return fm.make_fm_model(
            name or "auto", base_url=config.base_url, context_window=config.context_window
        )
    if kind == "scripted":
        if not name:
            raise HillclimberError("model 'scripted:' needs a file of answers: scripted:PATH")
        return ScriptedModel.from_file(Path(name))
    raise HillclimberError(
        f"unknown model '{config.spec}' (use local, local:NAME, openai:NAME, llamacpp:NAME, "
        "ollama:NAME, fm, or scripted:PATH)"
    )
