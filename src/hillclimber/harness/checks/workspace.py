"""What is at the paths an instruction names before the first action, as the rules that read
checks out of the instruction look at it (`extract.py`, `copies.py`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from hillclimber.sandbox import FileInfo, OutsideSandbox, Sandbox, walk
from hillclimber.sandbox.files import is_file, read_text, same_name


@dataclass(frozen=True)
class Workspace:
    """What is at the paths the instruction names, before the first action."""

    sandbox: Sandbox
    workdir: str
    roots: tuple[str, ...] = ()
    """Where a file named by its bare name may be (`instruction.search_roots`)."""

    def info(self, path: str) -> FileInfo | None:
        try:
            return self.sandbox.stat(path)
        except (OSError, OutsideSandbox):
            return None

    def is_file(self, path: str) -> bool:
        return is_file(self.sandbox, path)

    def exists(self, path: str) -> bool:
        return self.info(path) is not None

    def text(self, path: str) -> str:
        return read_text(self.sandbox, path) or ""

    def texts(self, max_bytes: int, places: Iterable[str] = (), limit: int = 300) -> Iterator[str]:
        """The paths under the working folder and `places` (files, or folders), and the texts
        of their files (of the first `limit` entries of each folder)."""
        for place in (self.workdir, *places):
            info = self.info(place)
            if info is not None and info.kind == "file":
                yield place
                yield read_text(self.sandbox, place, max_bytes) or ""
            elif info is not None and place != "/":
                yield from self._folder(place, max_bytes, limit)

    def _folder(self, root: str, max_bytes: int, limit: int) -> Iterator[str]:
        for seen, (path, info) in enumerate(walk(self.sandbox, root)):
            if seen >= limit:
                return
            yield path
            if info.kind == "file" and (text := read_text(self.sandbox, path, max_bytes)):
                yield text

    def elsewhere(self, name: str) -> bool:
        """Whether a file called `name` is anywhere under the working folder or in a folder
        the instruction names ("two BED files in `/data/genomics/`: `regions_a.bed` …")."""
        return any(same_name(self.sandbox, root, name) for root in self.roots or (self.workdir,))
