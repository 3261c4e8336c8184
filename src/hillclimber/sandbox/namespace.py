"""Root without bubblewrap: a private mount, pid and network namespace (`unshare`) and a fresh
tmpfs root built from read-only binds of the system folders and the trial's folders, made the
root with `pivot_root` (the host's tree is detached, so nothing lies above it). The command runs
without capabilities (as bwrap's does): it cannot remount, mount, chroot or make devices. Its
device nodes are its own (a chmod changes only them), /proc/sys and /proc/sysrq-trigger are
read-only, and /etc/shadow and /etc/gshadow are hidden. In a session (`session.py`) a command
joins the trial's pid, network, IPC and host name namespaces (`nsenter`) with a mount namespace
of its own.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping

from hillclimber.errors import SandboxUnavailable
from hillclimber.sandbox.base import (
    STANDARD_PATH,
    Layout,
    SandboxKind,
)
from hillclimber.sandbox.host import HostSandbox
from hillclimber.sandbox.session import Holder, Session, Users
from hillclimber.sandbox.system import system_entries

# Runs as root inside the new namespaces. Arguments: root, cwd, command, then triples of
# (kind, host, target) for system dirs ("sys"/"link") and mounts ("rw"/"ro"), then "--", then env.
_SETUP = r"""
set -eu
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
root=$1 cwd=$2 command=$3; shift 3
mount -t tmpfs -o mode=755 hc-root "$root"
while [ "$1" != "--" ]; do
  kind=$1 host=$2 target=$3; shift 3
  case $kind in
    link) ln -s "$host" "$root$target" ;;
    sys|ro|rw)
      mkdir -p "$root$target"
      mount --bind "$host" "$root$target"
      [ "$kind" = rw ] || mount -o remount,bind,ro "$root$target" ;;
  esac
done
shift
mkdir -p "$root/dev" "$root/proc"
mount -t tmpfs -o mode=755 hc-dev "$root/dev"
for d in null,1,3 zero,1,5 full,1,7 random,1,8 urandom,1,9 tty,5,0; do
  IFS=, read -r name major minor <<< "$d"
  mknod -m 666 "$root/dev/$name" c "$major" "$minor"
done
ln -s /proc/self/fd "$root/dev/fd"; ln -s fd/0 "$root/dev/stdin"
ln -s fd/1 "$root/dev/stdout"; ln -s fd/2 "$root/dev/stderr"
mkdir -p "$root/dev/shm" && mount -t tmpfs hc-shm "$root/dev/shm"
mount -t proc proc "$root/proc"
for hide in proc/sys proc/sysrq-trigger proc/irq proc/bus etc/shadow etc/gshadow; do
  [ -e "$root/$hide" ] || continue
  case $hide in etc/*) source=$root/dev/null ;; *) source=$root/$hide ;; esac
  mount --bind "$source" "$root/$hide"
  mount -o remount,bind,ro "$root/$hide"
done
cd "$root"
mkdir .hc-old
pivot_root . .hc-old
umount -l /.hc-old
rmdir /.hc-old
exec setpriv --inh-caps=-all --ambient-caps=-all --bounding-set=-all -- \
  /usr/bin/env -i "$@" /bin/bash -c 'cd "$1" && eval "$2"' hc "$cwd" "$command"
"""


class NamespaceSandbox(HostSandbox):
    kind = SandboxKind.NAMESPACE
    session_users = Users.NONE  # its commands are the host's root, without capabilities
    own_network = False  # its root is made by a script: a task that may use the network has
    # the host's network, as before

    def __init__(self, layout: Layout, session: Session | None = None) -> None:
        if os.geteuid() != 0:
            raise SandboxUnavailable("the namespace sandbox needs root (use bwrap instead)")
        unshare = shutil.which("unshare", path=STANDARD_PATH)
        if unshare is None or shutil.which("setpriv", path=STANDARD_PATH) is None:
            raise SandboxUnavailable("unshare and setpriv (util-linux) are not installed")
        if layout.scratch is None:
            raise SandboxUnavailable("the namespace sandbox needs a scratch folder for its root")
        super().__init__(layout, session)
        self.unshare = unshare
        self.root = layout.scratch / "nsroot"
        self.root.mkdir(parents=True, exist_ok=True)

    def argv(
        self, command: str, cwd: str, env: Mapping[str, str], holder: Holder | None
    ) -> list[str]:
        if holder is not None:
            args = [*holder.nsenter(pid=True), self.unshare, "--mount", "--propagation=private"]
        else:
            args = [self.unshare, "--mount", "--pid", "--fork", "--kill-child", "--ipc", "--uts"]
            args.append("--propagation=private")
            if not self.layout.network:
                args.append("--net")
        args += ["/bin/bash", "-c", _SETUP, "hc-ns", str(self.root), cwd, command]
        for entry in system_entries():
            if entry.symlink_to is not None:
                args += ["link", entry.symlink_to, f"/{entry.name}"]
            else:
                args += ["sys", f"/{entry.name}", f"/{entry.name}"]
        for mount in sorted(self.layout.mounts, key=lambda m: m.target.count("/")):
            args += ["ro" if mount.readonly else "rw", str(mount.host), mount.target]
        args.append("--")
        return args + [f"{key}={value}" for key, value in env.items()]
