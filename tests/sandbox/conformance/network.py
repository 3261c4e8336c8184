"""The network: none unless the trial asks for it; asked for, a way out through a network of
the trial's own, with its own loopback."""

from __future__ import annotations

from hillclimber.sandbox.slirp import slirp_binary

from conformance.host import PROBE, NotHere, host_address, serving
from conformance.trials import Trials


def network_off_unless_asked(trials: Trials) -> None:
    """Without the network asked for, a command reaches nothing: not a server on the host's
    address, not one on the host's loopback."""
    box = trials.open()
    for address in (host_address(), "127.0.0.1"):
        with serving(address) as port:
            reached = box.run(PROBE.format(address=address, port=port), timeout=30)
        assert not reached.ok, (address, reached.output)


def network_when_asked(trials: Trials) -> None:
    """With the network asked for, a command reaches out (a server on the host's address stands
    for the world here)."""
    address = host_address()
    box = trials.open(network=True)
    with serving(address) as port:
        reached = box.run(PROBE.format(address=address, port=port), timeout=30)
    assert reached.ok and reached.stdout.strip() == "hello", reached.output


def network_of_its_own(trials: Trials) -> None:
    """A trial that may use the network has a loopback of its own: the host's 127.0.0.1 (a model
    server, another trial's service) is out of its reach, and a server it starts binds no port
    of the host's."""
    if slirp_binary() is None:
        raise NotHere("no slirp4netns here: a trial that may use the network has the host's")
    box = trials.open(network=True)
    with serving("127.0.0.1") as port:
        reached = box.run(PROBE.format(address="127.0.0.1", port=port), timeout=30)
    assert not reached.ok, reached.output
    listening = box.run(  # waits for the server to listen: a loaded machine starts it late
        "python3 -m http.server 0 --bind 127.0.0.1 >/dev/null 2>&1 &"
        " for _ in $(seq 100); do"
        " n=$(awk 'NR > 1 && $4 == \"0A\"' /proc/net/tcp | wc -l);"
        ' [ "$n" -gt 0 ] && break; sleep 0.2; done; echo "$n"',
        timeout=60,
    )
    assert listening.stdout.strip() == "1", listening.output  # its own server, alone
