from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import pytest

from hillclimber.sandbox import (
    Layout,
    Mount,
    OutsideSandbox,
    SandboxKind,
    create_sandbox,
    rewrite_paths,
    trial_layout,
)
from hillclimber.sandbox.slirp import slirp_binary

from conftest import require_sandbox


def make(kind: SandboxKind, root: Path, network: bool = False):
    return create_sandbox(kind, trial_layout(root, network=network))


def test_commands_run_at_app_with_exit_code_and_duration(sandbox_kind, tmp_path):
    sandbox = make(sandbox_kind, tmp_path)
    result = sandbox.run("echo hi > /app/x.txt && cat /app/x.txt && pwd && exit 3", timeout=20)
    assert result.exit_code == 3
    assert result.stdout.splitlines()[0] == "hi"
    assert (tmp_path / "workspace" / "x.txt").read_text() == "hi\n"
    if sandbox_kind is not SandboxKind.LOCAL:
        assert result.stdout.splitlines()[1] == "/app"
    assert 0 < result.duration_sec < 20
    assert not result.timed_out


def test_state_persists_between_commands_in_tmp_and_home(sandbox_kind, tmp_path):
    sandbox = make(sandbox_kind, tmp_path)
    assert sandbox.run("echo a > /tmp/t && echo b > ~/h", timeout=20).ok
    assert sandbox.run("cat /tmp/t ~/h", timeout=20).stdout == "a\nb\n"


def test_timeout_kills_the_whole_process_group(sandbox_kind, tmp_path):
    sandbox = make(sandbox_kind, tmp_path)
    start = time.monotonic()
    result = sandbox.run("(sleep 3; echo late > /app/late.txt) & sleep 30", timeout=1)
    assert result.timed_out and not result.ok
    assert time.monotonic() - start < 10
    time.sleep(3.5)
    assert not (tmp_path / "workspace" / "late.txt").exists()


def test_output_is_capped_but_counted(sandbox_kind, tmp_path):
    sandbox = make(sandbox_kind, tmp_path)
    result = sandbox.run("head -c 3000000 /dev/zero | tr '\\0' x", timeout=20, output_cap=10_000)
    assert result.ok
    assert len(result.stdout) == 10_000
    assert result.truncated


@pytest.mark.parametrize("kind", [SandboxKind.BWRAP, SandboxKind.NAMESPACE], ids=str)
def test_isolated_sandboxes_never_write_the_host_outside_the_workspace(kind, tmp_path):
    require_sandbox(kind)
    sandbox = make(kind, tmp_path / "trial")
    marker = f"hc-escape-{os.getpid()}-{kind.value}"
    home = Path.home()
    outside = tmp_path / "outside"
    outside.mkdir()
    attempts = [
        f"echo x > /etc/{marker}",
        f"echo x > {home}/{marker}",
        f"echo x > {outside}/{marker}",
        f"mkdir -p /usr/{marker}",
        f"echo x > /{marker}",
    ]
    for command in attempts:
        sandbox.run(command, timeout=20)
    sandbox.run(f"echo inside > /app/{marker}", timeout=20)
    assert not Path(f"/etc/{marker}").exists()
    assert not (home / marker).exists()
    assert not (outside / marker).exists()
    assert not Path(f"/usr/{marker}").exists()
    assert not Path(f"/{marker}").exists()
    # /app is the trial's workspace, never the host's /app
    assert not Path(f"/app/{marker}").exists()
    assert (tmp_path / "trial" / "workspace" / marker).read_text() == "inside\n"
    assert sandbox.isolated


def _serve_once(address: str) -> tuple[int, threading.Thread]:
    server = socket.socket()
    server.bind((address, 0))
    server.listen(1)
    server.settimeout(5)

    def accept() -> None:
        try:
            conn, _ = server.accept()
            conn.sendall(b"hello")
            conn.close()
        except OSError:
            pass
        finally:
            server.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    return server.getsockname()[1], thread


def _host_address() -> str:
    """This machine's address on its default route (no packet is sent), as a server outside
    the trial would be reached; skip where there is none."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 9))
        except OSError:
            pytest.skip("no network route on this machine")
        address: str = probe.getsockname()[0]
    if address.startswith("127."):
        pytest.skip("no address but loopback on this machine")
    return address


PROBE = (
    "python3 -c \"import socket,sys; s=socket.create_connection(('{address}', {port}), 3);"
    ' print(s.recv(5).decode())"'
)


@pytest.mark.parametrize("kind", [SandboxKind.BWRAP, SandboxKind.NAMESPACE], ids=str)
def test_network_is_off_unless_the_task_asks(kind, tmp_path):
    require_sandbox(kind)
    address = _host_address()
    port, thread = _serve_once(address)
    off = make(kind, tmp_path / "off").run(PROBE.format(address=address, port=port), timeout=20)
    assert not off.ok
    port, thread = _serve_once(address)
    on = make(kind, tmp_path / "on", network=True)
    reached = on.run(PROBE.format(address=address, port=port), timeout=20)
    thread.join(5)
    assert reached.ok and reached.stdout.strip() == "hello", reached.output


def test_a_trial_that_may_use_the_network_has_a_loopback_of_its_own(tmp_path):
    """Its way out is slirp4netns: the host's 127.0.0.1 (a model server, another trial's
    service) is out of reach, and a server it starts binds no port of the host's."""
    require_sandbox(SandboxKind.BWRAP)
    if slirp_binary() is None:
        pytest.skip(
            "slirp4netns is not installed: a trial that may use the network shares the host's"
        )
    port, _ = _serve_once("127.0.0.1")
    with make(SandboxKind.BWRAP, tmp_path, network=True) as sandbox:
        host = sandbox.run(PROBE.format(address="127.0.0.1", port=port), timeout=20)
        assert not host.ok, host.output
        listening = sandbox.run(
            "python3 -m http.server 0 --bind 127.0.0.1 >/dev/null 2>&1 & sleep 0.5;"
            " cat /proc/net/tcp | awk 'NR > 1 && $4 == \"0A\"' | wc -l",
            timeout=20,
        )
        assert listening.stdout.strip() == "1", listening.output  # its own server, alone


def test_host_path_maps_sandbox_paths_and_refuses_escapes(tmp_path):
    layout = trial_layout(tmp_path)
    sandbox = create_sandbox(SandboxKind.LOCAL, layout)
    assert sandbox.host_path("/app/a/b.txt") == (tmp_path / "workspace" / "a" / "b.txt").resolve()
    assert sandbox.host_path("b.txt", cwd="/app/a") == (tmp_path / "workspace/a/b.txt").resolve()
    assert sandbox.host_path("/tmp/x") == (tmp_path / "tmp" / "x").resolve()
    with pytest.raises(OutsideSandbox):
        sandbox.host_path("/etc/passwd")
    with pytest.raises(OutsideSandbox):
        sandbox.host_path("/app/../../etc/passwd")
    (tmp_path / "workspace" / "link").symlink_to("/etc")
    with pytest.raises(OutsideSandbox):
        sandbox.host_path("/app/link/passwd")


def test_local_rewrites_sandbox_paths_as_whole_components(tmp_path):
    layout = Layout(mounts=(Mount("/app", tmp_path / "ws"), Mount("/tests", tmp_path / "t")))
    ws, t = tmp_path / "ws", tmp_path / "t"
    assert rewrite_paths("cat /app/x.txt", layout) == f"cat {ws}/x.txt"
    assert rewrite_paths("cd /app && ls", layout) == f"cd {ws} && ls"
    assert rewrite_paths("python3 /tests/t.py '/app'", layout) == f"python3 {t}/t.py '{ws}'"
    assert rewrite_paths("ls /application /data/app /app.bak", layout) == (
        "ls /application /data/app /app.bak"
    )


def test_local_sandbox_runs_commands_naming_app(tmp_path):
    sandbox = make(SandboxKind.LOCAL, tmp_path)
    result = sandbox.run("cd /app && echo hi > /app/y.txt && cat y.txt", timeout=20)
    assert result.ok and result.stdout == "hi\n"
    assert (tmp_path / "workspace" / "y.txt").exists()
    assert not sandbox.isolated


def test_a_folder_worked_on_where_it_is_with_its_run_record_hidden(tmp_path: Path) -> None:
    """`hillclimber run` works on the user's folder; its record under runs/ there is out of
    the model's sight and survives the workspace being put back."""
    require_sandbox(SandboxKind.BWRAP)
    folder = tmp_path / "project"
    (folder / "runs" / "r1").mkdir(parents=True)
    (folder / "runs" / "r1" / "result.json").write_text("{}")
    (folder / "main.py").write_text("print(1)\n")
    layout = trial_layout(tmp_path / "trial", workspace=folder, hidden=["/app/runs"])
    sandbox = create_sandbox(SandboxKind.BWRAP, layout)
    assert sandbox.run("ls -A /app/runs", timeout=10).stdout == ""
    assert not sandbox.run("touch /app/runs/x", timeout=10).ok
    assert sandbox.run("echo 2 > /app/new.txt", timeout=10).ok
    assert (folder / "new.txt").read_text() == "2\n"
    snapshot = sandbox.snapshot("/app")
    (folder / "main.py").unlink()
    (folder / "runs" / "r2").mkdir()  # the record grows while the workspace is tried
    snapshot.restore()
    snapshot.discard()
    assert (folder / "main.py").read_text() == "print(1)\n"
    assert sorted(p.name for p in (folder / "runs").iterdir()) == ["r1", "r2"]
