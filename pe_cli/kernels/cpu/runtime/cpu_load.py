"""How many of this process's cores other processes are using, from Linux's counters.

A parallel loop splits its work evenly over its threads and ends when the last part is done. When
another process holds one of the cores, the part on that core waits for a time slice (milliseconds)
while the other threads wait at the end: on a busy 2-core machine LeNet-5's step took 8.4 ms with 2
threads and 6.3 ms with 1 (docs/PERFORMANCE.md, "Threads on a busy machine"). So pe gives its loops
only the cores other processes leave free (kernels/cpu/runtime/threads.py).

``OtherLoad.cores_in_use()`` compares two readings of /proc/stat (the CPUs of this process's
affinity mask) and of /proc/self/stat: the CPU time the allowed cores spent busy, less this
process's own, over the wall time between them. Before a first interval has passed,
``others_running()`` says how many threads of other processes are running at this instant
(/proc/stat's procs_running, less this process's running threads): a run that starts beside a busy
process leaves its core alone from its first step, not from LOAD_EVERY_S on (measured: the MLP's
first 0.3 s took 5.2-5.7 ms a step instead of 2.0). It costs 12 ms, once, and again after a
pause. Elsewhere than Linux both report 0.
"""

import os
import time

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _allowed_cpus():
    try:
        return {f"cpu{i}" for i in os.sched_getaffinity(0)}
    except (AttributeError, OSError):
        return None


def _machine_busy(cpus):
    """Busy jiffies of ``cpus`` (all fields but idle and iowait)."""
    busy = 0
    with open("/proc/stat", "rb") as f:
        for line in f:
            if not line.startswith(b"cpu"):
                break  # the CPU lines come first
            fields = line.split()
            if fields[0].decode() in cpus:  # cpuN lines (the first line, "cpu", sums them all)
                values = [int(v) for v in fields[1:9]]
                busy += sum(values) - values[3] - values[4]
    return busy


def _own_busy():
    with open("/proc/self/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


class OtherLoad:
    """Cores of this process's affinity mask that other processes kept busy since the last reading."""

    def __init__(self):
        self.cpus = _allowed_cpus()
        self._last = self._read()

    def _read(self):
        if not self.cpus:
            return None
        try:
            return time.monotonic(), _machine_busy(self.cpus), _own_busy()
        except (OSError, ValueError, IndexError):
            self.cpus = None
            return None

    def cores_in_use(self):
        """Other processes' load (in cores) since the previous call (or construction)."""
        now = self._read()
        last, self._last = self._last, now
        if now is None or last is None or now[0] - last[0] <= 0:
            return 0.0
        busy = (now[1] - last[1]) - (now[2] - last[2])
        return max(0.0, busy / _TICK / (now[0] - last[0]))


def others_running(samples=4, gap_s=0.004):
    """Threads of other processes running or runnable now: the least of ``samples`` readings
    ``gap_s`` apart, 12 ms in all. One reading is not enough: on a quiet machine it catches some
    short-lived thread 1.5% of the time, and the OpenMP threads of a process that has just finished
    a parallel loop spin, runnable, for 3 to 10 ms (measured: PyTorch's, after 50 matmuls on 2
    threads). Only where this process may run on every CPU (procs_running counts all of them); else,
    and elsewhere than Linux, 0."""
    try:
        if len(os.sched_getaffinity(0)) < (os.cpu_count() or 1):
            return 0
        least = None
        for i in range(samples):
            if i:
                time.sleep(gap_s)
            n = max(0, _procs_running() - _own_running())
            least = n if least is None else min(least, n)
        return least or 0
    except (AttributeError, OSError, ValueError, IndexError):
        return 0


def _procs_running():
    with open("/proc/stat", "rb") as f:
        for line in f:
            if line.startswith(b"procs_running"):
                return int(line.split()[1])
    return 0


def _own_running():
    """This process's threads in state R (running or runnable)."""
    n = 0
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat", "rb") as f:
                n += f.read().rsplit(b")", 1)[1].split()[0] == b"R"
        except OSError:  # the thread ended meanwhile
            pass
    return n
