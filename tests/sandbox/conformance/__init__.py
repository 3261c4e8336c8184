"""The sandbox conformance suite, as inspect_ai's sandbox self-check: one list of behaviours
that every kind of sandbox is run against (`tests/sandbox/test_conformance.py`). A back end is
correct when the list passes on it, but for what it cannot do by design: that is declared for
it here, in `CANNOT`, with the reason, and checked to still fail where trying is harmless.

Each behaviour is a function of a `Trials` (it opens sandboxes of one kind and ends them) that
uses only the `Sandbox` protocol, and the host's own view (its files, its /proc, a server on its
address) to see what a command reached. There is no pytest in here: the Harbor bridge runs the
list from Harbor's Python (`conformance/harbor.py`), which has none. A behaviour that finds this
machine without what it needs raises `NotHere` (skipped here, a failure in CI).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from conformance import commands, files, isolation, limits, network, session
from conformance.host import NotHere
from conformance.trials import Trials

__all__ = ["BEHAVIOURS", "CANNOT", "KINDS", "Behaviour", "Cannot", "NotHere", "Trials", "cannot"]

Behaviour = Callable[[Trials], None]

LIMITS: tuple[Behaviour, ...] = (
    limits.limit_memory,
    limits.limit_file_size,
    limits.limit_output,
    limits.limit_folders,
    limits.limit_processes,
    limits.limits_leave_the_rest_alone,
)
"""The resource limits, each a behaviour of its own."""

BEHAVIOURS: tuple[Behaviour, ...] = (
    files.files_round_trip,
    files.files_what_is_there,
    files.files_seen_by_commands,
    files.files_links_followed_inside,
    files.files_outside_refused,
    files.files_upload_merges,
    files.files_another_view,
    files.snapshot_restores_exactly,
    commands.commands_report_exit_and_output,
    commands.commands_start_in_the_tasks_folder,
    commands.commands_get_no_host_environment,
    commands.commands_output_capped,
    commands.commands_return_while_output_held,
    commands.timeout_ends_the_whole_group,
    *LIMITS,
    isolation.nothing_outside_written,
    isolation.own_tmp_and_home,
    isolation.host_processes_out_of_sight,
    network.network_off_unless_asked,
    network.network_when_asked,
    network.network_of_its_own,
    session.session_serves_later_commands,
    session.session_shared_by_views,
    session.session_ends_every_leftover,
    session.session_no_linger,
    session.session_outlives_looks_and_timeouts,
    session.session_survives_kill_all,
)

KINDS = ("bwrap", "namespace", "local", "container", "harbor")
"""Every kind of sandbox we have: the three over host folders, a task's image, and the bridge
to a Harbor environment (run over ours: `-e hillclimber.harbor:SandboxEnvironment`)."""


@dataclass(frozen=True)
class Cannot:
    """What a kind cannot do by design, and why. `tried`: the behaviour is still run and must
    fail (a kind that learns it must say so here); False where trying would harm the host."""

    why: str
    tried: bool = True


_UNISOLATED = "no isolation: a plain folder on the host, /app rewritten in commands"
_NO_SESSION = (
    "no session: a process left running could not be told from the host's own, so each "
    "command's processes end with it"
)
_EVERYTHING_INSIDE = "every path is the sandbox's own (its root is {}): nothing lies outside"
_HARBOR_LIMITS = (
    "its limits are the environment's (Docker's, a cloud sandbox's, ours): the bridge sets "
    "none and learns only the exit code"
)
_HARBOR_NETWORK = "the network is the task's to ask for (task.toml), not the bridge's"

CANNOT: dict[str, dict[Behaviour, Cannot]] = {
    "local": {
        commands.commands_start_in_the_tasks_folder: Cannot(
            f"{_UNISOLATED}: commands start in the host folder behind /app"
        ),
        files.files_links_followed_inside: Cannot(
            f"{_UNISOLATED}: a link a command makes holds the host's path, which the file "
            "API (sandbox paths) refuses"
        ),
        isolation.nothing_outside_written: Cannot(_UNISOLATED, tried=False),
        isolation.own_tmp_and_home: Cannot(f"{_UNISOLATED}: /tmp is the host's", tried=False),
        isolation.host_processes_out_of_sight: Cannot(
            f"{_UNISOLATED}: the host's /proc (trying would print its secrets)", tried=False
        ),
        network.network_off_unless_asked: Cannot(f"{_UNISOLATED}: the host's network"),
        network.network_of_its_own: Cannot(f"{_UNISOLATED}: the host's network"),
        session.session_serves_later_commands: Cannot(_NO_SESSION),
        session.session_shared_by_views: Cannot(_NO_SESSION),
        session.session_ends_every_leftover: Cannot(_NO_SESSION),
        session.session_outlives_looks_and_timeouts: Cannot(_NO_SESSION),
        session.session_survives_kill_all: Cannot(
            f"{_NO_SESSION} (and `kill -9 -1` would end every process of the host)", tried=False
        ),
    },
    "namespace": {
        network.network_of_its_own: Cannot(
            "a trial that may use the network shares the host's (its root is made by a script)"
        ),
    },
    "container": {
        files.files_outside_refused: Cannot(_EVERYTHING_INSIDE.format("the image's")),
    },
    "harbor": {
        files.files_outside_refused: Cannot(_EVERYTHING_INSIDE.format("the environment's")),
        files.files_another_view: Cannot(
            "its folders are the environment's: nothing of this machine is laid in (Harbor "
            "uploads /tests itself)"
        ),
        **dict.fromkeys(
            (network.network_when_asked, network.network_of_its_own),
            Cannot(_HARBOR_NETWORK, tried=False),
        ),
        **dict.fromkeys(LIMITS, Cannot(_HARBOR_LIMITS, tried=False)),
        session.session_no_linger: Cannot(
            "what a command leaves running lives in the environment until it stops: the "
            "bridge cannot end it"
        ),
    },
}


def cannot(kind: str, behaviour: Behaviour) -> Cannot | None:
    """What `kind` declares it cannot do of `behaviour`, if anything."""
    return CANNOT.get(kind, {}).get(behaviour)
