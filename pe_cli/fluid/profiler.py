"""``paddle.fluid.profiler`` of Fluid 1.8: ``profiler(...)`` / ``start_profiler`` ... ``stop_profiler``
time every op the executors run (pe_cli/base/profiler.py) and print Fluid's "Profiling Report" table:
one ``thread0::<op type>`` row per op type with its calls and total, min, max and average ms and
its share of the kernel time (then pe's split of a run into kernels, dispatch and data), sorted
as ``sorted_key`` says (None: the order the ops first ran).

``profile_path`` gets Fluid's profile file: a binary ``Profile`` message (platform/profiler.proto) of
one CPU event per kernel run, which Fluid's tools/timeline.py turns into a Chrome trace
(pe_cli/io/fluid_profile.py; the first 200,000 kernel runs of a profile).
``cuda_profiler`` (nvprof in Fluid) collects pe's own profile of the block and writes it to
``output_file`` as CSV (``output_mode='csv'``, the default) or key=value lines (``'kvp'``)."""

import contextlib

from ..base import profiler as _base
from ..base.atomic_file import atomic_write
from ..io.fluid_profile import write_profile

__all__ = ["cuda_profiler", "reset_profiler", "profiler", "start_profiler", "stop_profiler"]

_KEYS = {"default": None, "calls": "calls", "total": "total", "max": "max", "min": "min", "ave": "ave"}
_ORDER = {
    None: "event first end time",
    "calls": "number of calls",
    "total": "total time",
    "max": "maximum time",
    "min": "minimum time",
    "ave": "average time",
}


def report(profile, sorted_key=None, place="CPU"):
    """Fluid's report table of a collected Profile, as text."""
    rows = [(name, calls, total, lo, hi) for name, (calls, total, lo, hi) in profile.ops.items()]
    index = {"calls": 1, "total": 2, "min": 3, "max": 4}
    if sorted_key == "ave":
        rows.sort(key=lambda r: -r[2] / r[1])
    elif sorted_key is not None:
        rows.sort(key=lambda r: -r[index[sorted_key]])
    kernels = profile.kernels or 1.0  # the ops a control-flow op's block ran are inside its time
    width = max([28] + [len("thread0::" + r[0]) + 4 for r in rows])
    lines = [
        "------------------------->     Profiling Report     <-------------------------",
        "",
        f"Place: {place}",
        "Time unit: ms",
        f"Sorted by {_ORDER[sorted_key]} in descending order in the same thread",
        "",
        f"{'Event':<{width}}{'Calls':<12}{'Total':<12}{'Min.':<12}{'Max.':<12}{'Ave.':<12}Ratio.",
    ]
    for name, calls, total, lo, hi in rows:
        lines.append(
            f"{'thread0::' + name:<{width}}{calls:<12}{1e3 * total:<12.6g}{1e3 * lo:<12.6g}{1e3 * hi:<12.6g}"
            f"{1e3 * total / calls:<12.6g}{total / kernels:.6g}"
        )
    lines += ["", profile.table(None).splitlines()[-1]]  # pe's split: kernels, dispatch, data
    return "\n".join(lines) + "\n"


def start_profiler(state, tracer_option="Default"):
    if state not in ("CPU", "GPU", "All"):
        raise ValueError("The state must be 'CPU' or 'GPU' or 'All'.")
    if tracer_option not in ("Default", "OpDetail", "AllOpDetail"):
        raise ValueError("tracer option must be 'Default', 'OpDetail', 'AllOpDetail'.")
    global _state
    _state = "CPU" if state == "CPU" else "All"
    _base.start_profiler(state, tracer_option)


_state = "CPU"


def reset_profiler():
    _base.reset_profiler()


def stop_profiler(sorted_key=None, profile_path="/tmp/profile"):
    """Stops profiling, prints the report and writes Fluid's profile file to ``profile_path``."""
    if _base.active() is None:
        return
    key = "default" if sorted_key is None else sorted_key
    if key not in _KEYS:
        raise ValueError("The sorted_key must be None or in 'calls', 'total', 'max', 'min' and 'ave'")
    profile = _base.finish()
    text = report(profile, _KEYS[key], _state)
    print(text, end="")
    if profile_path:
        write_profile(profile_path, profile.events, profile.start_ns, profile.end_ns)


@contextlib.contextmanager
def profiler(state, sorted_key=None, profile_path="/tmp/profile", tracer_option="Default"):
    start_profiler(state, tracer_option)
    yield
    stop_profiler(sorted_key, profile_path)


@contextlib.contextmanager
def cuda_profiler(output_file, output_mode=None, config=None):
    output_mode = "csv" if output_mode is None else output_mode
    if output_mode not in ("kvp", "csv"):
        raise ValueError("The output mode must be 'kvp' or 'csv'.")
    with _base.collect() as profile:
        yield
    fields = ("calls", "total_ms", "min_ms", "max_ms")
    rows = [(name, calls, 1e3 * total, 1e3 * lo, 1e3 * hi) for name, (calls, total, lo, hi) in profile.ops.items()]
    if output_mode == "csv":
        text = (
            "op," + ",".join(fields) + "\n" + "".join(f"{r[0]},{r[1]},{r[2]:.6g},{r[3]:.6g},{r[4]:.6g}\n" for r in rows)
        )
    else:
        text = "".join(f"op={r[0]} " + " ".join(f"{k}={v:.6g}" for k, v in zip(fields, r[1:])) + "\n" for r in rows)
    atomic_write(output_file, text)
