"""The messages of parameter-server mode, over MPI point-to-point (mpi4py; the ``mpi`` extra).

Ranks: the P servers are MPI ranks 0..P-1 (the order of their endpoints), trainer i is rank P + i.
Every message is one host array whose MPI tag is its block's number (the same numbering in every
process, fixed by the transpiler); a row-sparse gradient block (SelectedRows) is one byte message:
its height and row count (two int64), the rows (int64) and the values. A trainer that has finished
sends ``COMPLETE`` to every server.
Trainers send without waiting (``Isend``) and wait at the barrier or before receiving, so no
pair of processes can block on each other; servers receive each trainer's blocks in the order sent.

Every wait is bounded (``PE_PSERVER_WAIT_SECONDS``, default 900: Fluid 1.8's own limit on a
trainer's silence, its ``FLAGS_worker_update_interval_secs``). A server stops, naming the trainer and
its step, when a trainer it waits for has sent nothing (nor taken its reply) for that long since their
last exchange: a trainer's whole step counts, its first one's kernel compilation too. A trainer waits
for its servers twice as long (in synchronous mode the servers' answer waits for the slowest trainer,
whose server says so first). The waits poll (``Iprobe``, ``Test``) with naps of at most 2 ms: MPICH's
blocking calls spin a core for the whole wait. A server that holds no block waits for the trainers'
``COMPLETE`` only, for as long as training takes (the servers that hold blocks bound it).
"""

import atexit
import math
import os
import time

import numpy as np

from ..base.errors import PeError
from ..base.selected_rows import SelectedRows
from .processes import ProcessGroup, _host, _mpi, world

COMPLETE = 32000  # a tag above every block number (MPI guarantees tags up to 32767)
_TRAINERS = {}
_SERVERS = {}
_WAIT_ENV = "PE_PSERVER_WAIT_SECONDS"
_FIRST_NAP_S, _LONGEST_NAP_S, _IDLE_NAP_S = 50e-6, 2e-3, 50e-3


def wait_seconds(env=os.environ):
    """How long a server waits for a trainer (``PE_PSERVER_WAIT_SECONDS``, default 900)."""
    value = env.get(_WAIT_ENV, "900")
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds < math.inf:
        raise PeError(
            f"{_WAIT_ENV}={value!r}: give the longest wait of a parameter server for a trainer in "
            f"seconds (above 0), e.g. 900"
        )
    return seconds


def poll(ready, deadline, longest=_LONGEST_NAP_S):
    """Calls ``ready()`` until it is true (True) or ``time.monotonic()`` passes ``deadline`` (False;
    None: no deadline), napping between calls, each nap twice the last up to ``longest`` seconds."""
    nap = _FIRST_NAP_S
    while not ready():
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            return False
        time.sleep(nap if deadline is None else min(nap, deadline - now))
        nap = min(2 * nap, longest)
    return True


def _check_world(comm, servers, trainers, rank, role):
    size = comm.Get_size()
    if size != servers + trainers:
        raise PeError(
            f"parameter-server mode with {servers} server(s) and {trainers} trainer(s) needs "
            f"mpiexec -n {servers + trainers} (servers are ranks 0..{servers - 1}, trainers after "
            f"them), but mpiexec started {size} process(es)"
        )
    if comm.Get_rank() != rank:
        raise PeError(
            f"this process is MPI rank {comm.Get_rank()} but runs as {role} (rank {rank}): servers are "
            f"ranks 0..{servers - 1} in the order of their endpoints, trainer i is rank {servers} + i"
        )


def pack_rows(sr):
    """A SelectedRows as one byte message (see the module's docstring)."""
    rows, values = sr.numpy()
    head = np.array([sr.height, len(rows)], np.int64)
    return np.concatenate(
        [
            head.view(np.uint8),
            np.ascontiguousarray(rows, np.int64).view(np.uint8),
            np.ascontiguousarray(values).reshape(-1).view(np.uint8),
        ]
    )


def unpack_rows(buf, shape, dtype, where):
    """The SelectedRows of a [shape] block of ``dtype`` that ``pack_rows`` made; ``where`` names the
    sender and block in the error for a message that does not fit the block."""
    dtype, width = np.dtype(dtype), int(np.prod(shape[1:], dtype=np.int64))
    if len(buf) >= 16:
        height, count = (int(v) for v in buf[:16].view(np.int64))
        size = 16 + count * (8 + width * dtype.itemsize)
        if height == shape[0] and count >= 0 and len(buf) == size:
            rows = buf[16 : 16 + 8 * count].view(np.int64).copy()
            if not count or (rows.min() >= 0 and rows.max() < height):
                values = buf[16 + 8 * count :].view(dtype).reshape((count,) + tuple(shape[1:])).copy()
                return SelectedRows(rows, values, height)
    raise PeError(
        f"{where}: the row-sparse message of {len(buf)} bytes does not fit the block "
        f"{list(shape)} {dtype.name} (a trainer and a server built from different programs?)"
    )


class TrainerLink:
    """A trainer's side: sends gradient blocks, receives parameter blocks."""

    def __init__(self, endpoints, trainer_id, trainers):
        self.comm = world()
        self.servers = list(endpoints)
        _check_world(self.comm, len(self.servers), trainers, len(self.servers) + trainer_id, f"trainer {trainer_id}")
        self.group = ProcessGroup(self.comm, watch=False)  # a failing rank stops every rank
        self.trainer_id, self.wait = trainer_id, 2 * wait_seconds()
        self.step, self._sent = 0, False  # steps whose sends began; step 0: the initial parameters
        self._pending = []
        self._closed = False
        atexit.register(self.close)

    def rank_of(self, endpoint):
        try:
            return self.servers.index(endpoint)
        except ValueError:
            raise PeError(f"send/recv: {endpoint!r} is not one of the servers {','.join(self.servers)}") from None

    def send(self, array, endpoint, tag):
        if not self._sent:
            self.step, self._sent = self.step + 1, True
        buf = pack_rows(array) if isinstance(array, SelectedRows) else _host(array)
        rank = self.rank_of(endpoint)
        self._pending.append((self.comm.Isend(buf, dest=rank, tag=tag), rank, buf))

    def wait_sends(self):
        deadline = time.monotonic() + self.wait
        for request, rank, _ in self._pending:
            if not poll(request.Test, deadline):
                raise self._silent(rank, "took none of this trainer's gradients")
        self._pending.clear()

    def recv(self, endpoint, tag, shape, dtype):
        self.wait_sends()
        self._sent = False
        buf = np.empty(shape, dtype)
        rank = self.rank_of(endpoint)
        request = self.comm.Irecv(buf, source=rank, tag=tag)
        if not poll(request.Test, time.monotonic() + self.wait):
            request.Cancel()
            raise self._silent(rank, "sent nothing")
        return buf

    def _silent(self, rank, what):
        when = f"in step {self.step}" if self.step else "before the first step (the initial parameters)"
        return PeError(
            f"trainer {self.trainer_id}: server {rank} ({self.servers[rank]}) {what} for "
            f"{self.wait:g} s (twice {_WAIT_ENV}) {when}; stopping"
        )

    def close(self):
        """Tells every server this trainer has finished (once; also at exit)."""
        if self._closed:
            return
        self._closed = True
        self.wait_sends()
        done = np.zeros(1, np.int64)
        for rank in range(len(self.servers)):
            self.comm.Send(done, dest=rank, tag=COMPLETE)


class ServerLink:
    """A server's side: which trainers are still training, their blocks, the replies."""

    def __init__(self, endpoints, endpoint, trainers):
        self.comm = world()
        if endpoint not in endpoints:
            raise PeError(f"listen_and_serv: {endpoint!r} is not one of the servers {','.join(endpoints)}")
        self.servers = len(endpoints)
        self.index, self.endpoint = endpoints.index(endpoint), endpoint
        _check_world(self.comm, self.servers, trainers, self.index, f"server {endpoint}")
        self.group = ProcessGroup(self.comm, watch=False)
        self.trainers = trainers
        self.active = list(range(trainers))
        self.wait = wait_seconds()
        self.since = [time.monotonic()] * trainers  # each trainer's last exchange with this server
        self.steps = [0] * trainers  # the steps whose gradients came from each

    def trainer_rank(self, trainer):
        return self.servers + trainer

    def _silent(self, trainer, what, when=None):
        when = when or f"in step {self.steps[trainer] + 1}"
        return PeError(
            f"pserver {self.index} ({self.endpoint}): trainer {trainer} {what} for {self.wait:g} s "
            f"({_WAIT_ENV}) {when}; stopping"
        )

    def _probe(self, trainer, status):
        """Waits for trainer ``trainer``'s next message (its tag and size in ``status``)."""
        source = self.trainer_rank(trainer)
        if not poll(
            lambda: self.comm.Iprobe(source=source, tag=_mpi().ANY_TAG, status=status), self.since[trainer] + self.wait
        ):
            raise self._silent(trainer, "sent nothing")
        self.since[trainer] = time.monotonic()

    def receive(self, trainer, blocks):
        """Trainer ``trainer``'s next step: {tag: array or SelectedRows} for ``blocks`` ({tag: (shape,
        dtype, row-sparse?)}), or None when it has finished (it then leaves ``active``)."""
        status = _mpi().Status()
        got = {}
        source = self.trainer_rank(trainer)
        if not blocks:  # a server without blocks hears only that the trainer finished
            poll(lambda: self.comm.Iprobe(source=source, tag=COMPLETE), None, _IDLE_NAP_S)
            self.comm.Recv(np.zeros(1, np.int64), source=source, tag=COMPLETE)
            self.active.remove(trainer)
            return None
        while len(got) < len(blocks):
            self._probe(trainer, status)
            tag = status.Get_tag()
            if tag == COMPLETE:
                self.comm.Recv(np.zeros(1, np.int64), source=source, tag=COMPLETE)
                if got:
                    raise PeError(f"trainer {trainer} finished in the middle of a step")
                self.active.remove(trainer)
                return None
            if tag not in blocks or tag in got:
                raise PeError(f"trainer {trainer} sent block {tag}, which this server does not hold")
            shape, dtype, sparse = blocks[tag]
            if sparse:
                buf = np.empty(status.Get_count(_mpi().BYTE), np.uint8)
                self.comm.Recv(buf, source=source, tag=tag)
                got[tag] = unpack_rows(buf, shape, dtype, f"block {tag} from trainer {trainer}")
            else:
                buf = np.empty(shape, dtype)
                self.comm.Recv(buf, source=source, tag=tag)
                got[tag] = buf
        self.steps[trainer] += 1
        return got

    def any_sender(self, bounded=True):
        """The trainer whose message came first (asynchronous mode); ``bounded``: a trainer silent for
        longer than the bound stops the wait (a server that holds blocks)."""
        status = _mpi().Status()
        deadline = min(self.since[t] for t in self.active) + self.wait if bounded else None
        if not poll(
            lambda: self.comm.Iprobe(source=_mpi().ANY_SOURCE, tag=_mpi().ANY_TAG, status=status),
            deadline,
            _LONGEST_NAP_S if bounded else _IDLE_NAP_S,
        ):
            raise self._silent(min(self.active, key=self.since.__getitem__), "sent nothing")
        return status.Get_source() - self.servers

    def send_all(self, trainer, arrays):
        """Sends {tag: array} to ``trainer``, all at once."""
        bufs = [(_host(a), tag) for tag, a in sorted(arrays.items())]
        requests = [self.comm.Isend(buf, dest=self.trainer_rank(trainer), tag=tag) for buf, tag in bufs]
        if not poll(lambda: _mpi().Request.Testall(requests), time.monotonic() + self.wait):
            step = self.steps[trainer]
            raise self._silent(
                trainer,
                "did not take its parameters",
                f"after step {step}" if step else "before its first step (the initial parameters)",
            )
        self.since[trainer] = time.monotonic()


def trainer_link(endpoints, trainer_id, trainers):
    key = (tuple(endpoints), trainer_id, trainers)
    if key not in _TRAINERS:
        _TRAINERS[key] = TrainerLink(endpoints, trainer_id, trainers)
    return _TRAINERS[key]


def server_link(endpoints, endpoint, trainers):
    key = (tuple(endpoints), endpoint, trainers)
    if key not in _SERVERS:
        _SERVERS[key] = ServerLink(list(endpoints), endpoint, trainers)
    return _SERVERS[key]


def close_trainer_links():
    """Every trainer link of this process says it has finished (Executor.close())."""
    for link in _TRAINERS.values():
        link.close()
