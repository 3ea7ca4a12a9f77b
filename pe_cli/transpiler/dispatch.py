"""Where parameter blocks live: Fluid's placement policies (``dispatch(varlist)`` -> one server
endpoint per block). Both are deterministic, so every process places every block alike."""

import zlib

from ..base.errors import PeError


class PSDispatcher:
    """Places variable blocks on parameter servers (``dispatch(varlist)`` -> one endpoint each)."""

    def __init__(self, pserver_endpoints):
        if isinstance(pserver_endpoints, str):
            pserver_endpoints = [e for e in pserver_endpoints.split(",") if e]
        if not pserver_endpoints:
            raise PeError(f"{type(self).__name__}: give at least one parameter-server endpoint")
        self._eps = list(pserver_endpoints)
        self._step = 0

    @property
    def eps(self):
        return self._eps

    def reset(self):
        self._step = 0

    def dispatch(self, varlist):
        raise NotImplementedError


class RoundRobin(PSDispatcher):
    """Endpoints in turn, continuing where the last ``dispatch`` stopped (``reset()`` starts over)."""

    def dispatch(self, varlist):
        out = []
        for _ in varlist:
            out.append(self._eps[self._step])
            self._step = (self._step + 1) % len(self._eps)
        return out


class HashName(PSDispatcher):
    """The endpoint chosen by a hash of the variable's name: CRC-32, the same in every process
    (Python's ``hash`` of a str changes between runs)."""

    def dispatch(self, varlist):
        names = [v if isinstance(v, str) else v.name for v in varlist]
        return [self._eps[zlib.crc32(n.encode()) % len(self._eps)] for n in names]
