"""A real HTTP server on 127.0.0.1 that stands in for OpenAI-compatible back ends (llama.cpp,
vLLM, the Apple Foundation Model bridges) and for Ollama's native `/api/chat`.

Each test scripts what it answers (a queue of `Reply`) and reads back every request body it
received, so a test can check that temperature, max_tokens, seed, response_format or
options.num_ctx were really sent. Optional modes copy the real bridges: a token limit answered
with one of the bridges' overflow errors, and a server that rejects `response_format`. A reply
may also be a fault: a server that hangs, hangs up without a word, dies halfway through an
answer, or (run as a process of its own, `main`) is killed outright.

    with FakeServer(context_limit=4096, overflow="500") as server:
        server.script(Reply(text="hi"), Reply(status=500, error="boom"))
        model = OpenAICompatModel("m", server.url, profile)
        ...
        assert server.bodies()[0]["temperature"] == 0.0
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

OverflowStyle = Literal["500", "400", "413"]

# What the real bridges answer when prompt plus answer do not fit.
OVERFLOW_REPLIES: dict[str, tuple[int, dict[str, Any]]] = {
    # Apple FM bridges that pass the SDK's error through as a server error.
    "500": (
        500,
        {
            "error": {
                "message": "Exceeded model context window size (4096 tokens). Shorten the prompt.",
                "type": "server_error",
            }
        },
    ),
    # OpenAI's own shape: the code says it, the message need not.
    "400": (
        400,
        {
            "error": {
                "code": "context_length_exceeded",
                "message": "The prompt is too long for this model.",
                "type": "invalid_request_error",
            }
        },
    ),
    "413": (
        413,
        {
            "error": {
                "code": "exceeded_context_window_size",
                "message": "Request does not fit the model.",
                "type": "invalid_request_error",
            }
        },
    ),
}

RESPONSE_FORMAT_REJECTED = {
    "error": {
        "message": "response_format is not supported by this server",
        "type": "invalid_request_error",
    }
}

AUTO: Any = object()
"""Usage computed from the request (chars/4), as a server that counts would report it."""


@dataclass
class Reply:
    """One scripted answer. A `status` other than 200 sends `error` as the body instead."""

    text: str = "ok"
    finish_reason: str = "stop"
    usage: dict[str, int] | None = AUTO
    """`AUTO`: counted from the request; `None`: the answer carries no usage at all."""
    status: int = 200
    error: dict[str, Any] | str | None = None
    """Error body: a dict is sent as is, a string as {"error": {"message": ...}} (OpenAI) or
    {"error": "..."} (Ollama)."""
    delay: float = 0.0
    """Seconds to wait before answering (for client timeouts)."""
    raw: str | None = None
    """Send this body verbatim (status as given), e.g. to test a malformed answer."""
    hang: bool = False
    """Read the request and never answer (until the server stops): a server that hangs."""
    drop: bool = False
    """Close the connection without a word (no status line): a server that gives up."""
    cut: int | None = None
    """Announce the whole answer but send only its first `cut` bytes, then close: a server
    that dies halfway through writing it."""
    die: bool = False
    """Kill the server's process (SIGKILL) instead of answering: only for a server in a
    process of its own (`main`), which goes as a crashed server goes."""


@dataclass
class Received:
    method: str
    path: str
    body: dict[str, Any]


@dataclass
class FakeServer:
    context_limit: int | None = None
    """Tokens for prompt plus answer (chars/4 of all message contents + max tokens)."""
    overflow: OverflowStyle = "500"
    response_format_supported: bool = True
    models: list[str] = field(default_factory=lambda: ["test-model"])
    default: Reply = field(default_factory=Reply)
    """Answered when the script is empty."""
    own_process: bool = False
    """Set by `main`: only a server in a process of its own may kill itself (`Reply.die`)."""

    replies: deque[Reply] = field(default_factory=deque, init=False)
    received: list[Received] = field(default_factory=list, init=False)
    _httpd: ThreadingHTTPServer | None = field(default=None, init=False)
    _thread: threading.Thread | None = field(default=None, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _released: threading.Event = field(default_factory=threading.Event, init=False)
    """Set on stop: hanging answers end (their connections close unanswered)."""

    # -- life cycle ------------------------------------------------------------------------
    def start(self) -> FakeServer:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._released.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what tests use --------------------------------------------------------------------
    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def root(self) -> str:
        """Base URL without a path (Ollama's native API)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """Base URL of the OpenAI-compatible API."""
        return f"{self.root}/v1"

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def bodies(self, path: str | None = None) -> list[dict[str, Any]]:
        """Bodies of the POST requests received (to `path` only, if given), in order."""
        with self._lock:
            return [
                r.body
                for r in self.received
                if r.method == "POST" and (path is None or r.path == path)
            ]

    @property
    def count(self) -> int:
        """How many POST requests arrived."""
        return len(self.bodies())

    # -- behaviour -------------------------------------------------------------------------
    def _next_reply(self) -> Reply:
        with self._lock:
            return self.replies.popleft() if self.replies else self.default

    def _record(self, method: str, path: str, body: dict[str, Any]) -> None:
        with self._lock:
            self.received.append(Received(method, path, body))


def estimate_tokens(body: dict[str, Any]) -> int:
    """chars/4 of every message's content, plus the room asked for the answer."""
    chars = sum(len(str(m.get("content") or "")) for m in body.get("messages", []))
    options = body.get("options") or {}
    answer = (
        body.get("max_tokens") or body.get("max_completion_tokens") or options.get("num_predict")
    )
    return chars // 4 + int(answer or 0)


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _Handler(BaseHTTPRequestHandler):
    fake: FakeServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    # -- routes ----------------------------------------------------------------------------
    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        self.fake._record("GET", path, {})
        if path == "/v1/models":
            data = [{"id": m, "object": "model", "owned_by": "test"} for m in self.fake.models]
            self._send(200, {"object": "list", "data": data})
        elif path == "/api/tags":
            self._send(200, {"models": [{"name": m, "model": m} for m in self.fake.models]})
        else:
            self._send(404, {"error": {"message": f"no route {path}"}})

    def do_POST(self) -> None:
        path = self.path.split("?")[0]
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {"_unparsed": raw.decode(errors="replace")}
        self.fake._record("POST", path, body)
        if path == "/v1/chat/completions":
            self._chat_completions(body)
        elif path == "/api/chat":
            self._ollama_chat(body)
        else:
            self._send(404, {"error": {"message": f"no route {path}"}})

    def _chat_completions(self, body: dict[str, Any]) -> None:
        fake = self.fake
        if "response_format" in body and not fake.response_format_supported:
            self._send(400, RESPONSE_FORMAT_REJECTED)
            return
        if fake.context_limit is not None and estimate_tokens(body) > fake.context_limit:
            status, error = OVERFLOW_REPLIES[fake.overflow]
            self._send(status, error)
            return
        reply = fake._next_reply()
        if self._special(reply, openai_shape=True):
            return
        usage = reply.usage
        if usage is AUTO:
            prompt = estimate_tokens({"messages": body.get("messages", [])})
            answer = max(1, len(reply.text) // 4)
            usage = {
                "prompt_tokens": prompt,
                "completion_tokens": answer,
                "total_tokens": prompt + answer,
            }
        answer_body: dict[str, Any] = {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "test-model"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.text},
                    "finish_reason": reply.finish_reason,
                }
            ],
        }
        if usage is not None:
            answer_body["usage"] = usage
        self._send(200, answer_body, cut=reply.cut)

    def _ollama_chat(self, body: dict[str, Any]) -> None:
        fake = self.fake
        if fake.context_limit is not None and estimate_tokens(body) > fake.context_limit:
            status, error = OVERFLOW_REPLIES[fake.overflow]
            inner = error["error"]
            text = " ".join(str(inner[k]) for k in ("message", "code") if k in inner)
            self._send(status, {"error": text})
            return
        reply = fake._next_reply()
        if self._special(reply, openai_shape=False):
            return
        answer_body: dict[str, Any] = {
            "model": body.get("model", "test-model"),
            "created_at": "2026-11-22T00:00:00Z",
            "message": {"role": "assistant", "content": reply.text},
            "done": True,
            "done_reason": reply.finish_reason,
        }
        usage = reply.usage
        if usage is AUTO:
            answer_body["prompt_eval_count"] = estimate_tokens({"messages": body["messages"]})
            answer_body["eval_count"] = max(1, len(reply.text) // 4)
        elif usage is not None:
            answer_body["prompt_eval_count"] = usage["prompt_tokens"]
            answer_body["eval_count"] = usage["completion_tokens"]
        self._send(200, answer_body, cut=reply.cut)

    # -- helpers ---------------------------------------------------------------------------
    def _special(self, reply: Reply, *, openai_shape: bool) -> bool:
        """Delay, faults, raw bodies and error statuses; True when the answer has been sent
        (or, for a fault, will never be)."""
        if reply.delay:
            time.sleep(reply.delay)
        if reply.die:
            assert self.fake.own_process, "Reply(die=True) kills the process: use main()"
            os.kill(os.getpid(), signal.SIGKILL)
        if reply.hang:
            self.fake._released.wait()
        if reply.hang or reply.drop:
            self._hang_up()
            return True
        if reply.raw is not None:
            self._send_bytes(reply.status, reply.raw.encode())
            return True
        if reply.status == 200:
            return False
        error = reply.error if reply.error is not None else f"HTTP {reply.status}"
        if isinstance(error, str):
            error = {"error": {"message": error}} if openai_shape else {"error": error}
        self._send(reply.status, error)
        return True

    def _send(self, status: int, data: dict[str, Any], cut: int | None = None) -> None:
        self._send_bytes(status, json.dumps(data).encode(), cut=cut)

    def _send_bytes(self, status: int, payload: bytes, cut: int | None = None) -> None:
        """The answer; with `cut`, only its first bytes (the length still says all of it)."""
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload if cut is None else payload[:cut])
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test); nothing to answer
        if cut is not None:
            self._hang_up()

    def _hang_up(self) -> None:
        """Close this connection now, whatever was (not) said on it."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)


def main(argv: Sequence[str] | None = None) -> None:
    """`python tests/openai_server.py [--reply TEXT]... [--die]`: the server in a process of
    its own. It prints its port on the first line, answers the replies in order (then the
    default), and with `--die` kills itself (SIGKILL) on the request after them: the kernel
    closes its sockets, the request gets no answer and the port refuses every later one. It
    also ends when the process that started it does."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--reply", action="append", default=[], help="an answer's text")
    parser.add_argument("--die", action="store_true", help="then die on the next request")
    args = parser.parse_args(argv)
    server = FakeServer(own_process=True).start()
    server.script(*(Reply(text=text) for text in args.reply))
    if args.die:
        server.script(Reply(die=True))
    print(server.port, flush=True)
    parent = os.getppid()
    with contextlib.suppress(KeyboardInterrupt):
        while os.getppid() == parent:  # it goes with the test that started it
            time.sleep(0.5)
    server.stop()


if __name__ == "__main__":
    main()
