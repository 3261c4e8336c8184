"""The file API: what the harness reads and writes goes through it, never around the sandbox,
so it must see exactly what commands see, and refuse what lies outside."""

from __future__ import annotations

from pathlib import Path

from hillclimber.sandbox import FileInfo, Mount, OutsideSandbox, Sandbox, walk
from hillclimber.sandbox.files import exists

from conformance.trials import Trials, refused, run


def files_round_trip(trials: Trials) -> None:
    """What the API writes it reads back byte for byte (all 256 byte values; the first bytes
    alone with `limit`), with the folders above it made and the mode asked for; a write
    replaces the whole file and, asked no mode, keeps the file's (an edited script still
    runs); a relative path is taken from /app."""
    box = trials.open()
    data = bytes(range(256)) * 16
    box.write_file("/app/deep/er/blob.bin", data)
    assert box.read_file("/app/deep/er/blob.bin") == data
    assert box.read_file("deep/er/blob.bin", limit=3) == data[:3]
    box.write_file("/app/deep/er/blob.bin", b"short")
    assert box.read_file("/app/deep/er/blob.bin") == b"short"
    box.write_file("/app/tool.sh", b"#!/bin/sh\necho ran\n", mode=0o750)
    assert run(box, "stat -c %a /app/tool.sh && /app/tool.sh") == "750\nran\n"
    box.write_file("/app/tool.sh", b"#!/bin/sh\necho edited\n")
    assert run(box, "stat -c %a /app/tool.sh && /app/tool.sh") == "750\nedited\n"


def files_what_is_there(trials: Trials) -> None:
    """`stat`, `exists`, `listdir`, `mkdir` and `walk` say what commands see: a file and its
    size, a folder (through a link too), a link to a file, to a folder, to nothing, and nothing
    at all; `walk` leaves out the names it is told to skip and what is under them;
    asking a file for what a folder holds, or a folder for its bytes, is an error of its own."""
    box = trials.open()
    box.mkdir("/app/a/b")
    box.mkdir("/app/a/b")  # again: already there
    box.write_file("/app/a/f.txt", b"12345")
    box.write_file("/app/a/b/inner.txt", b"")
    run(box, "cd /app/a && ln -s f.txt to-file && ln -s b to-dir && ln -s missing nowhere")
    assert box.stat("/app/a/f.txt") == FileInfo("file", 5, False)
    assert box.stat("/app/a/to-file") == FileInfo("file", 5, True)
    assert box.stat("/app/a/nowhere") == FileInfo("other", 0, True)
    folder, to_folder = box.stat("/app/a/b"), box.stat("/app/a/to-dir")
    assert folder is not None and (folder.kind, folder.link) == ("dir", False)
    assert to_folder is not None and (to_folder.kind, to_folder.link) == ("dir", True)
    assert box.stat("/app/a/none") is None and not box.exists("/app/a/none")
    assert box.exists("/app/a/nowhere") and box.stat("a/f.txt") == box.stat("/app/a/f.txt")
    assert box.listdir("/app/a") == ["b", "f.txt", "nowhere", "to-dir", "to-file"]
    assert box.listdir("/app/a/b") == box.listdir("/app/a/to-dir") == ["inner.txt"]
    every = ["b", "b/inner.txt", "f.txt", "nowhere", "to-dir", "to-file"]  # no link followed
    assert sorted(path for path, _ in walk(box, "/app/a")) == [f"/app/a/{p}" for p in every]
    skipped = sorted(path for path, _ in walk(box, "/app/a", skip=("b", "nowhere")))
    assert skipped == ["/app/a/f.txt", "/app/a/to-dir", "/app/a/to-file"]
    refused(FileNotFoundError, box.listdir, "/app/none")
    refused(NotADirectoryError, box.listdir, "/app/a/f.txt")
    refused(OSError, box.mkdir, "/app/a/f.txt")
    refused(FileNotFoundError, box.read_file, "/app/none")
    refused(IsADirectoryError, box.read_file, "/app/a")


def files_seen_by_commands(trials: Trials) -> None:
    """A file the API writes, a command reads; what a command writes, the API reads: in the
    task's folder and in /root alike."""
    box = trials.open()
    for folder in ("/app", "/root"):
        box.write_file(f"{folder}/from-api.txt", b"api\n")
        assert run(box, f"cat {folder}/from-api.txt && echo cmd > {folder}/from-cmd.txt") == "api\n"
        assert box.read_file(f"{folder}/from-cmd.txt") == b"cmd\n"


def files_links_followed_inside(trials: Trials) -> None:
    """A link a command makes is followed as the sandbox sees it: an absolute one from the
    sandbox's own root (never to the host's file of that name), a relative one from where it
    is; reading and writing through it alike."""
    box = trials.open()
    box.write_file("/app/data/x.txt", b"inside\n")
    run(box, "ln -s /app/data/x.txt /app/absolute && ln -s data /app/relative")
    assert box.read_file("/app/absolute") == b"inside\n"
    assert box.read_file("/app/relative/x.txt") == b"inside\n"
    box.write_file("/app/relative/y.txt", b"through\n")
    assert run(box, "cat /app/data/y.txt") == "through\n"


def files_outside_refused(trials: Trials) -> None:
    """What lies outside the sandbox's folders is refused with OutsideSandbox, never read or
    written on the host: a path there, a `..` that climbs out, a link that leads out."""
    box = trials.open()
    run(box, "ln -s /etc /app/etc-link && ln -s ../../../../../../../etc/passwd /app/up")
    for path in ("/etc/passwd", "/app/../etc/passwd", "/app/etc-link/passwd", "/app/up"):
        refused(OutsideSandbox, box.read_file, path)
    refused(OutsideSandbox, box.write_file, "/app/etc-link/hc-written", b"x")
    refused(OutsideSandbox, box.write_file, "/app/../../hc-written", b"x")
    refused(OutsideSandbox, box.mkdir, "/app/../hc-made")
    refused(OutsideSandbox, box.listdir, "/etc")
    assert box.stat("/app/etc-link") == FileInfo("other", 0, True)
    assert not Path("/etc/hc-written").exists() and not Path("/hc-written").exists()


def files_upload_merges(trials: Trials) -> None:
    """A host folder uploaded is merged into what is there, as Docker's COPY does: what was
    there stays, modes and links come along; a file uploaded alone keeps its mode."""
    source = trials.folder / "upload"
    (source / "deep").mkdir(parents=True)
    (source / "deep" / "x.txt").write_text("x")
    (source / "tool.sh").write_text("#!/bin/sh\necho tool\n")
    (source / "tool.sh").chmod(0o750)
    (source / "to-x").symlink_to("deep/x.txt")
    box = trials.open()
    box.write_file("/app/data/kept.txt", b"kept")
    box.write_file("/app/data/deep/old.txt", b"old")
    box.upload(source, "/app/data")
    box.upload(source / "tool.sh", "/app/alone.sh")
    assert box.read_file("/app/data/kept.txt") == b"kept"
    assert box.read_file("/app/data/deep/old.txt") == b"old"
    assert box.read_file("/app/data/to-x") == b"x"
    shown = run(box, "cd /app/data && readlink to-x && stat -c %a tool.sh /app/alone.sh")
    assert shown == "deep/x.txt\n750\n750\n"
    assert run(box, "/app/data/tool.sh") == "tool\n"


def files_another_view(trials: Trials) -> None:
    """`with_layout` gives another view of the same trial (the verifier's, with /tests laid
    in): it sees the folder it adds, and the trial's own files; the first view is unchanged."""
    tests = trials.folder / "tests"
    tests.mkdir()
    (tests / "test.sh").write_text("echo testing\n")
    box = trials.open()
    box.write_file("/app/answer.txt", b"42\n")
    view = box.with_layout(box.layout.with_mounts(Mount("/tests", tests, readonly=True)))
    assert run(view, "bash /tests/test.sh && cat /app/answer.txt") == "testing\n42\n"
    assert view.read_file("/tests/test.sh") == b"echo testing\n"
    assert not exists(box, "/tests/test.sh")  # not there, or outside its folders


def snapshot_restores_exactly(trials: Trials) -> None:
    """A snapshot puts its folder back exactly, whatever was changed, added or removed since:
    contents, modes and links; `files` gives what was saved; once discarded it leaves no file
    in the sandbox."""
    box = trials.open()
    box.write_file("/app/keep.txt", b"before\n", mode=0o640)
    box.write_file("/app/gone/deep.txt", b"deep\n")
    run(box, "ln -s keep.txt /app/link")
    traces = _traces(box)
    snapshot = box.snapshot("/app")
    try:
        saved = dict(snapshot.files(1 << 20))
        assert saved == {"keep.txt": b"before\n", "gone/deep.txt": b"deep\n"}, saved
        run(
            box,
            "cd /app && echo after > keep.txt && chmod 600 keep.txt && rm -r gone"
            " && ln -sfn nowhere link && mkdir new && echo n > new/f",
        )
        snapshot.restore()
    finally:
        snapshot.discard()
    shown = run(box, "cd /app && find . | sort && stat -c %a keep.txt && readlink link")
    assert shown == ".\n./gone\n./gone/deep.txt\n./keep.txt\n./link\n640\nkeep.txt\n", shown
    assert box.read_file("/app/keep.txt") == b"before\n"
    assert _traces(box) == traces


def _traces(box: Sandbox) -> list[str]:
    """Where a snapshot could leave a copy in the sandbox: the files under /tmp and /root."""
    found = [entry for folder in ("/tmp", "/root") for entry in walk(box, folder)]
    return [path for path, info in found if info.kind == "file"]
