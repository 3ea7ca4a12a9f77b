"""Library choices made by measuring on the running CPU, once, and kept beside numba's cache.

Where pe can take one of several libraries for the same work (the GEMM its loops call: MKL or
numpy's OpenBLAS, pe_cli/kernels/cpu/runtime/cblas.py), a rule written on one machine is wrong on
another: MKL's single-threaded SGEMM took 0.75-0.93 of OpenBLAS's time on the 2-core Intel Xeon
VM, but 1.0-1.9x on the 2-core AMD EPYC VM (2026-11-26, the MLP's and a 1024-cube's shapes).
So ``fastest(name, candidates)`` times each candidate on this CPU the first time a process needs
the choice, and writes the outcome to ``measured-choices.json`` in pe's per-user cache folder
(``$XDG_CACHE_HOME/pe``, pe_cli/base/user_cache.py: never inside the package), keyed by the
choice, the CPU's model and the candidates' versions: later processes read it (a dict lookup)
instead of measuring. The file is data (JSON, a choice among the candidates pe offers), read
without following a link or blocking on a FIFO; one that cannot be read or written (read-only,
damaged, not a regular file) only means measuring again; it is rewritten whole (atomically) or left
alone. ``pe info`` shows the choices.
"""

import json
import os
import threading
import time

from ....base import user_cache

FILE = "measured-choices.json"
ROUNDS = 9  # alternating rounds; each candidate's best round counts

_lock = threading.Lock()
_memo = {}  # key -> choice, in this process


def cpu_model():
    """The CPU's model name (/proc/cpuinfo), or the machine's architecture."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.machine() or "unknown"


def cache_dir():
    """Where the choices are kept: pe's per-user cache folder."""
    return user_cache.root()


def _path():
    return os.path.join(cache_dir(), FILE)


def recorded():
    """Every choice kept for this machine: {key: {"choice", "seconds", "when"}} ({} without a file)."""
    try:
        data = json.loads(user_cache.read(_path()) or b"{}")
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError, user_cache.Foreign):
        return {}


def known(name, versions=""):
    """The choice kept for ``name`` on this CPU with these ``versions``, or None."""
    key = f"{name} | {cpu_model()} | {versions}"
    if key not in _memo:
        entry = recorded().get(key)
        if isinstance(entry, dict) and isinstance(entry.get("choice"), str):
            _memo[key] = entry["choice"]
    return _memo.get(key)


def fastest(name, candidates, versions="", prefer=None, margin=0.1):
    """The key of ``candidates`` ({key: a callable doing the work once}) that ran fastest here: read
    from the cache file, else measured (alternating rounds, each candidate's best) and recorded.
    ``prefer`` (the default library) keeps the choice unless another ran faster by more than
    ``margin`` (a near tie on a busy machine is noise, not a reason to load another library)."""
    key = f"{name} | {cpu_model()} | {versions}"
    with _lock:
        choice = known(name, versions)
        if choice in candidates:
            return choice
        seconds = _measure(candidates)
        choice = min(seconds, key=seconds.get)
        if prefer in seconds and seconds[choice] > (1 - margin) * seconds[prefer]:
            choice = prefer
        _memo[key] = choice
        _record(key, {"choice": choice, "seconds": seconds, "when": time.strftime("%Y-%m-%d %H:%M:%S")})
        return choice


def _measure(candidates):
    for work in candidates.values():
        work()  # warm: first calls load, fault pages in, fill caches
    best = {k: float("inf") for k in candidates}
    for _ in range(ROUNDS):
        for k, work in candidates.items():
            start = time.perf_counter()
            work()
            best[k] = min(best[k], time.perf_counter() - start)
    return best


def _record(key, entry):
    data = recorded()
    data[key] = entry
    try:
        user_cache.write(os.path.join(user_cache.folder(), FILE), json.dumps(data, indent=1, sort_keys=True).encode())
    except (OSError, ValueError):  # read-only or full: measured again next time
        pass
