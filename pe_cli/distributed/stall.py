"""The stall inspector of collective mode (as Horovod's): a rank that waits in a collective the
others never reach is reported, naming which ranks wait where and where the others were last seen,
and every rank stops.

Every rank tells rank 0, on a communicator of its own, each time it enters a collective: its
number (the same sequence on every rank) and a label ("all_reduce over 2 trainer processes of
fc_0.w_0@GRAD"). A thread on rank 0 keeps each rank's last position; when some ranks have waited
longer than ``PE_STALL_SECONDS`` (default 120) at a collective that others have not reached, it
prints one report and aborts every rank. Messages are 128 bytes: an int64 sequence number and the
label's first 120 bytes (no pickles).
"""

import atexit
import os
import sys
import threading
import time

import numpy as np

_SIZE = 128
_TAG = 7


def stall_seconds():
    value = os.environ.get("PE_STALL_SECONDS", "120")
    try:
        return max(float(value), 0.1)
    except ValueError:
        return 120.0


def _pack(seq, label):
    buf = np.zeros(_SIZE, np.uint8)
    buf[:8] = np.frombuffer(np.int64(seq).tobytes(), np.uint8)
    text = label.encode("utf-8", "replace")[: _SIZE - 8]
    buf[8 : 8 + len(text)] = np.frombuffer(text, np.uint8)
    return buf


def _unpack(buf):
    seq = int(np.frombuffer(buf[:8].tobytes(), np.int64)[0])
    return seq, bytes(buf[8:]).rstrip(b"\0").decode("utf-8", "replace")


class StallWatch:
    def __init__(self, mpi, comm, abort):
        self.mpi = mpi  # the mpi4py.MPI module
        self.comm = comm.Dup()
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.seq = 0
        self._request = None
        self._abort = abort  # abort(message): report and stop every rank
        self._stop = threading.Event()
        self.positions = {r: (0, "the start", time.monotonic()) for r in range(self.size)}
        self._thread = None
        if self.rank == 0 and self.size > 1:
            self._thread = threading.Thread(target=self._inspect, name="pe-stall-inspector", daemon=True)
            self._thread.start()
        atexit.register(self.stop)

    def enter(self, label):
        """Called by every rank as it enters a collective."""
        self.seq += 1
        if self.rank == 0:
            self.positions[0] = (self.seq, label, time.monotonic())
            return
        if self._request is not None:
            self._request.Wait()
        self._buf = _pack(self.seq, label)
        self._request = self.comm.Isend(self._buf, dest=0, tag=_TAG)

    def stop(self):
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)
        if self._request is not None:
            self._request.Wait()
            self._request = None

    def _inspect(self):
        status, buf, limit = self.mpi.Status(), np.zeros(_SIZE, np.uint8), stall_seconds()
        while not self._stop.is_set():
            while self.comm.Iprobe(source=self.mpi.ANY_SOURCE, tag=_TAG, status=status):
                self.comm.Recv(buf, source=status.Get_source(), tag=_TAG)
                seq, label = _unpack(buf)
                self.positions[status.Get_source()] = (seq, label, time.monotonic())
            report = stalled(self.positions, time.monotonic(), limit)
            if report:
                self._abort(report)
                return
            time.sleep(0.05)


def stalled(positions, now, limit):
    """The report of a stall in ``positions`` ({rank: (collective number, label, since)}), or None."""
    ahead = max(seq for seq, _, _ in positions.values())
    waiting = sorted(r for r, (seq, _, _) in positions.items() if seq == ahead)
    behind = sorted(r for r in positions if r not in waiting)
    if not behind:
        return None
    since = min(positions[r][2] for r in waiting)
    if now - since < limit:
        return None
    _, label, _ = positions[waiting[0]]
    where = "; ".join(f"rank {r} last entered collective #{positions[r][0]} ({positions[r][1]})" for r in behind)
    return (
        f"stall: rank(s) {', '.join(map(str, waiting))} have waited {now - since:.0f} s in collective #{ahead} "
        f"({label}), which rank(s) {', '.join(map(str, behind))} never reached: {where}. Stopping every "
        f"rank (PE_STALL_SECONDS={limit:g} sets the wait)"
    )


def report_and_abort(comm):
    def abort(message):
        sys.stderr.write(f"pe: {message}\n")
        sys.stderr.flush()
        time.sleep(0.3)  # let mpiexec forward the report before it stops the ranks
        comm.Abort(1)
        os._exit(1)

    return abort
