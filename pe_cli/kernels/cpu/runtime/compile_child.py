"""The helper process that compiles numba loops for a first run (see loops.py, ``_Later``).

A first run on a machine would otherwise wait for numba at its first step (LeNet-5: 12 loops, about
9 s on a 2-core VM). The parent asks this process, one loop at a time, to compile a loop for the
argument types of a call; it compiles it with ``cache=True``, so numba writes it to the cache the
parent reads (the same folder, numba_cache.py: written with pe's digest), and answers. The parent then loads
it from the cache in a few milliseconds. Meanwhile the parent's steps run numpy replicas of the
loops (_replicas.py: the same bits), on its own core: a compile in a thread of the parent would hold
the GIL that the parent's numpy calls hand back and forth hundreds of times a step.

Messages are JSON lines. First line in: ``{"path": sys.path}``. Then per loop in:
``{"id": n, "module": ..., "name": ..., "spec": [...]}``; out: ``{"id": n, "ok": bool, "s": seconds}``.
A spec names each argument's numba type (``_call_types.spec_of``); the child makes a stand-in
value of that type (``stand_ins``) only to ask numba for the same signature the parent's call has. Nothing is
unpickled.
"""

import importlib
import json
import sys
import time

from . import loops as _numba
from .call_types import stand_ins


def _compile(request):
    _numba._choose_layer()  # as the parent: parallel twins need the same layer
    loop = getattr(importlib.import_module(request["module"]), request["name"])
    sig = tuple(loop.typeof_pyval(v) for v in stand_ins(request["spec"]))
    loop.compile(sig)


def main():
    import warnings

    warnings.simplefilter("ignore")  # numba's warnings would go nowhere: stderr is closed
    first = json.loads(sys.stdin.readline() or "{}")
    sys.path[:] = first.get("path", sys.path)
    for line in sys.stdin:
        request = json.loads(line)
        start = time.perf_counter()
        try:
            _compile(request)
            ok = True
        except Exception:  # noqa: BLE001 - the parent then compiles it itself
            ok = False
        answer = {"id": request["id"], "ok": ok, "s": round(time.perf_counter() - start, 3)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
