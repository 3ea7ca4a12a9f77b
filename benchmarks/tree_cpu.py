"""The CPU seconds of a command and of every process it starts, those that outlive it included.

    .venv/bin/python benchmarks/tree_cpu.py COMMAND [ARGS...]

`/usr/bin/time` counts a command's children only when they are waited for. pe's compile helper
(pe_cli/kernels/cpu/runtime/compile_helper.py) is not: a `pe` process that ends leaves its helper to
finish the loop it is compiling, and that CPU went uncounted. Here this process makes itself the
children's subreaper (Linux's PR_SET_CHILD_SUBREAPER), so every orphan is handed to it and waited
for. Printed on stderr: the command's wall seconds, the seconds spent waiting for orphans, user and
system CPU seconds of the whole tree, and how many compile helpers it started (read from /proc every 0.1 s).
On a shared machine compare the CPU seconds, not the wall time. The exit status is the command's.
"""

import ctypes
import os
import resource
import subprocess
import sys
import threading
import time

PR_SET_CHILD_SUBREAPER = 36


def _parent(pid):
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def _ours(pid):
    """True when ``pid`` descends from this process."""
    me = os.getpid()
    while pid > 1:
        pid = _parent(pid)
        if pid == me:
            return True
    return False


def _watch_helpers(seen, stop):
    while not stop:
        for pid in os.listdir("/proc"):
            if pid.isdigit() and pid not in seen:
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        if b"compile_child" in f.read() and _ours(int(pid)):
                            seen.add(pid)
                except (OSError, ValueError, IndexError):
                    pass
        time.sleep(0.1)


def main(argv):
    if not argv:
        sys.exit(__doc__)
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    seen, stop = set(), []
    threading.Thread(target=_watch_helpers, args=(seen, stop), daemon=True).start()
    start = time.monotonic()
    code = subprocess.call(argv)
    ended = time.monotonic()
    while True:  # the orphans, handed to this process
        try:
            os.wait()
        except ChildProcessError:
            break
    stop.append(True)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"wall {ended - start:.1f} s (+{time.monotonic() - ended:.1f} s for orphans), user {used.ru_utime:.1f} "
        f"sys {used.ru_stime:.1f} CPU-s, {used.ru_utime + used.ru_stime:.1f} in all; compile helpers seen: {len(seen)}",
        file=sys.stderr,
    )
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
