"""Agents: what acts in the sandbox between setup and verification."""

from __future__ import annotations

from collections.abc import Callable

from hillclimber.agents.base import Agent, AgentOutcome
from hillclimber.agents.nop import NopAgent
from hillclimber.agents.oracle import OracleAgent
from hillclimber.errors import HillclimberError
from hillclimber.harness.config import HarnessConfig
from hillclimber.models import ModelConfig, make_model

__all__ = [
    "AGENTS",
    "PEERS",
    "Agent",
    "AgentMaker",
    "AgentOutcome",
    "agent_maker",
    "make_agent",
]

AGENTS = ("harness", "oracle", "nop", "mini-swe-agent")
PEERS = ("mini-swe-agent",)
"""Other tools' agents, run on our sandbox, tasks and verifier, with the model served to them."""


def make_agent(
    name: str, model: ModelConfig | None = None, harness: HarnessConfig | None = None
) -> Agent:
    """The agent a run names; built inside the trial, so a trial needs only its configs."""
    if name == "oracle":
        return OracleAgent()
    if name == "nop":
        return NopAgent()
    if name == "harness":
        from hillclimber.agents.harness import HarnessAgent

        return HarnessAgent(make_model(model or ModelConfig()), harness or HarnessConfig())
    if name == "mini-swe-agent":
        from hillclimber.agents.mini_swe import MiniSweAgent

        return MiniSweAgent(model or ModelConfig())
    raise HillclimberError(f"unknown agent '{name}' (choose from: {', '.join(AGENTS)})")


AgentMaker = Callable[[HarnessConfig | None], Agent]
"""An agent for each try of a trial, with that try's setting."""


def agent_maker(
    name: str, model: ModelConfig | None = None, harness: HarnessConfig | None = None
) -> tuple[AgentMaker, bool]:
    """Agents for the tries of one trial, sharing one model (a scripted model's answers run
    on from one try to the next), and whether that model draws its answers (`samples`)."""
    if name != "harness":
        return (lambda config: make_agent(name, model, harness)), False
    from hillclimber.agents.harness import HarnessAgent

    shared = make_model(model or ModelConfig())
    return (lambda config: HarnessAgent(shared, config or harness or HarnessConfig())), (
        shared.profile.samples
    )
