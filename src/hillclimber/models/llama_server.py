"""llama.cpp's OpenAI-compatible server as llama-cpp-python ships it, with one change: an
answer whose client has gone stops at its next token.

llama-cpp-python's server answers one call at a time and computes a call it has begun to its
end, whether anyone still waits for it or not (it skips only a call whose client went before it
began). A client that gives up on a call (its timeout ran out, its trial's time was up) left
the server busy with it, and the next call, that client's retry or the next trial's, waited
behind it: mini-swe-agent's trial of mteb-retrieve at 32,768 tokens spent 1,741 s of its 1,983
s in calls that queued so, and a fixture trial in CI waited five minutes past its time for an
answer of 3,392 tokens nobody read. The server already stops a streamed answer when its client
goes; this does the same for an answer given whole, which is how mini-swe-agent, Terminus-2 and
our own HTTP back end ask.

How: `StopWhenGone`, an ASGI layer around the server's app, reads each generating request's
body, then watches its connection while the app answers; the model's `create_completion`, which
both completion endpoints call, is given one more stopping criterion: that connection closed.
The server's log says `stopped an answer after N tokens: its client has gone`. A prompt the
model is still reading is read to its end first (llama.cpp checks between tokens).

Run as `python -m hillclimber.models.llama_server` with `llama_cpp.server`'s own arguments
(`serve.py` does).
"""

from __future__ import annotations

import argparse
import functools
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from contextvars import ContextVar
from typing import Any, cast

import anyio

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[MutableMapping[str, Any], Receive, Send], Awaitable[None]]

GENERATING = frozenset(
    {"/v1/completions", "/v1/chat/completions", "/v1/engines/copilot-codex/completions"}
)
"""The server's paths whose answers the model generates."""
DISCONNECT: Message = {"type": "http.disconnect"}

client_gone: ContextVar[threading.Event | None] = ContextVar("client_gone", default=None)
"""Set while a generating request is answered: its event is set once its client has gone. The
server answers in a worker thread, which starts with a copy of the request's context."""


class StopWhenGone:
    """ASGI: each generating request answered while its connection is watched."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") not in GENERATING:
            await self.app(scope, receive, send)
            return
        body = await _whole_body(receive)
        if body is None:  # gone before it had asked
            return
        gone, hung_up = threading.Event(), anyio.Event()

        async def replay() -> Message:
            """The request's body, then (what the app asks after it) whether the client left."""
            if body:
                return body.pop(0)
            if not gone.is_set():
                await hung_up.wait()
            return DISCONNECT

        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            gone.set()
            hung_up.set()

        token = client_gone.set(gone)
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(watch)
                try:
                    await self.app(scope, replay, send)
                finally:
                    group.cancel_scope.cancel()
        finally:
            client_gone.reset(token)


async def _whole_body(receive: Receive) -> list[Message] | None:
    """The request's body messages, or None if its client left first."""
    messages: list[Message] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        messages.append(message)
        if not message.get("more_body"):
            return messages


class UntilGone:
    """A stopping criterion (llama-cpp-python's: called with the tokens and logits after each
    token): true once the client has gone, said once in the server's log."""

    def __init__(self, gone: threading.Event) -> None:
        self.gone = gone
        self.tokens = 0
        self.said = False

    def __call__(self, input_ids: Any, logits: Any) -> bool:
        if not self.gone.is_set():
            self.tokens += 1
            return False
        if not self.said:
            self.said = True
            print(f"stopped an answer after {self.tokens} tokens: its client has gone", flush=True)
        return True


def stopping_when_gone(create_completion: Callable[..., Any]) -> Callable[..., Any]:
    """`Llama.create_completion`, stopping when the request it answers has lost its client."""

    @functools.wraps(create_completion)
    def create(self: Any, *args: Any, **kwargs: Any) -> Any:
        gone = client_gone.get()
        if gone is not None:
            from llama_cpp import StoppingCriteriaList

            given = kwargs.get("stopping_criteria") or []
            kwargs["stopping_criteria"] = StoppingCriteriaList([*given, UntilGone(gone)])
        return create_completion(self, *args, **kwargs)

    return create


def main(argv: list[str] | None = None) -> None:
    import llama_cpp
    import uvicorn
    from llama_cpp.server.app import create_app
    from llama_cpp.server.cli import add_args_from_model, parse_model_from_args
    from llama_cpp.server.settings import ModelSettings, ServerSettings, Settings

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_args_from_model(parser, Settings)
    args = parser.parse_args(argv)
    # its annotation says it returns the class it is given; it returns an instance
    server = cast(ServerSettings, parse_model_from_args(ServerSettings, args))
    model = cast(ModelSettings, parse_model_from_args(ModelSettings, args))
    llama_cpp.Llama.create_completion = stopping_when_gone(  # type: ignore[method-assign]
        llama_cpp.Llama.create_completion
    )
    app = create_app(server_settings=server, model_settings=[model])
    uvicorn.run(StopWhenGone(app), host=server.host, port=server.port)


if __name__ == "__main__":
    main()
