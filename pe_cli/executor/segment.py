"""A segment of a planned step (step_plan.py): consecutive launches of one device as one numba
function that releases the GIL. Its first ``PE_SEGMENT_COMPILE_AFTER`` runs (default 50; 0: none)
call its launches' loops one by one from Python, with the arguments the function would pass them
(the same loops: the same bits; ``_interpret``): compiling costs seconds a segment, which a
program run a few times never pays back; the next run compiles it (at once where this process
compiled that source already). A parallel twin it launches that is not compiled yet (a first run
on a machine: a helper process compiles it) is not waited for: its serial loop runs (the same
bits, ``Launch.serial``), and the segment is compiled only once every twin it calls is.

The function is generated as Python source: it imports each launch's loop from its module, takes
the values it reads from outside (``x*``), the plan's buffers and arrays (``b*``) and the GEMM's C
functions (``p*``, passed in: their addresses change from process to process) as parameters, writes
the launches' numbers as int64 and boolean values (not numba's literals, for which a loop would be
compiled again), and calls the loops in order: the machine code their calls from Python run. A
checked launch (a loss whose label may be out of range) returns at once with its index.

Compiling links every loop it calls into the segment's machine code (seconds for a step's dozen
loops), so the source is written to a file named by its hash (with the loops' files' sizes and
times, numba's and numpy's versions) under ``$XDG_CACHE_HOME/pe/segments`` (default
``~/.cache/pe/segments``) and compiled with numba's cache: the next process that plans the same
step loads it. The module is executed from the source pe generated, never from the file or a
``.pyc``: a file there that differs is replaced (pe_cli/base/user_cache.py has the cache's rules).
Where that folder cannot be written, the source is compiled in memory. In a process, one source is
compiled once (the devices of one program share it).
"""

import ctypes
import hashlib
import os
import sys
import time
import types

import numpy as np

from ..base import user_cache
from ..base.errors import PeError
from ..kernels.cpu.runtime import numba_cache
from ..kernels.cpu.runtime.loops import module_name, parallel_ready
from .donation import may_update
from .plan import draw_context, pass_launched_lod, run_step

_compiled = {}  # source hash -> the segment's numba dispatcher
_compile_seconds = [0.0]  # summed over the segments compiled (or loaded) in this process


COMPILE_AFTER = 50  # runs of a segment's launches one by one before it is compiled (PE_SEGMENT_COMPILE_AFTER)


def compile_after():
    """``PE_SEGMENT_COMPILE_AFTER`` (base/knobs.py checks it), else COMPILE_AFTER."""
    value = os.environ.get("PE_SEGMENT_COMPILE_AFTER", "")
    return int(value) if value.strip().isdigit() else COMPILE_AFTER


def compile_seconds():
    """Seconds this process spent compiling or loading segments (benchmarks report it)."""
    return _compile_seconds[0]


class Stale(Exception):
    """A value a segment reads is not the shape or dtype it was planned for."""


def _literal(value):
    """A launch's number as Python source numba types as the kernel's call from Python does: an
    int64 or a boolean, not a literal (``5`` in source is ``Literal[int](5)`` to numba, and a loop
    called with one is compiled again for it, a specialization of its own for each set of
    constants: seconds a loop, and not the machine code op by op runs)."""
    if isinstance(value, (bool, np.bool_)):
        return f"np.bool_({bool(value)!r})"
    if isinstance(value, (int, np.integer)):
        return f"np.int64({int(value)!r})"
    if isinstance(value, np.floating):
        return f"np.{value.dtype.name}({float(value)!r})"
    if isinstance(value, float):
        return repr(value)
    raise TypeError(f"a launch constant of type {type(value).__name__}")


class Segment:
    """Consecutive launches of one device as one compiled call without the GIL. ``steps`` are their
    ops' steps (to run op by op instead), ``updates`` the names they write in place."""

    def __init__(self, plan, indices):
        self.indices = list(indices)
        self.steps = [plan.steps[i] for i in self.indices]
        self.lod_steps = [plan.steps[i] for i in self.indices if i in plan.lod_steps]  # (their LoD passed after)
        launches = [(i, launch) for i in self.indices for launch in plan.launches[i] if launch.fn is not None]
        self._external = [plan.external[i] for i, _ in launches]
        self.owner = [i for i, _ in launches]  # the step of each launch (for a checked launch's failure)
        self.updates = tuple(dict.fromkeys(n for _, launch in launches for n in launch.updates))
        # (step, draw) of each launch that draws its step's random numbers before the loops run (dropout's)
        self.draws = [(plan.steps[i], launch.draw) for i in self.indices for launch in plan.launches[i] if launch.draw]
        self.ext, self.fixed, self.fn, self.calls, self.runs, self._hash = [], [], None, [], 0, None
        self.waiting = set()  # calls of parallel twins not compiled yet: their serial loops run instead
        self.compile_after = compile_after()  # (runs of its launches one by one before it is compiled)
        self.source, self.modules = self._generate(plan, [launch for _, launch in launches])

    def _generate(self, plan, launches):
        names, loops, lines = _Names(plan), {}, []
        for k, launch in enumerate(launches):
            args, specs = names.bind(launch.args, self._external[k])
            serial = None
            if launch.serial is not None:  # (its arguments are among the twin's: no parameter added)
                serial = (launch.serial[0], names.bind(launch.serial[1], self._external[k])[1])
                self.waiting.add(k)
            self.calls.append((launch.fn, specs, launch.checked, serial))
            fn = launch.fn
            loops.setdefault((fn.py_func.__module__, _loop_name(fn)), f"f{len(loops)}")
            call = f"{loops[(fn.py_func.__module__, _loop_name(fn))]}({', '.join(args)})"
            lines += [f"    r = {call}", "    if r >= 0:", f"        return {k}"] if launch.checked else [f"    {call}"]
        ext, fixed, pointers = names.ext, names.fixed, names.pointers
        self.ext = [(name, *plan.table[name], _c_strides(*plan.table[name])) for name in ext]
        self.fixed = [array for _, array in fixed.values()] + [fn for _, fn in pointers.values()]
        params = [*ext.values(), *(key for key, _ in fixed.values()), *(key for key, _ in pointers.values())]
        return _source(loops, params, lines), sorted({module for module, _ in loops})

    def _key(self):
        """The hash the segment's source is kept under (with its loops' files' sizes and times, numba's and numpy's versions)."""
        if self._hash is None:
            stamp = [self.source, np.__version__, _numba_version()]
            for module in self.modules:
                path = sys.modules[module].__file__
                info = os.stat(path)
                stamp.append(f"{path}:{info.st_size}:{info.st_mtime_ns}")
            self._hash = hashlib.sha256("\n".join(stamp).encode()).hexdigest()[:24]
        return self._hash

    def compile(self):
        """The segment's function, compiled once per source in this process (numba's cache beside
        its file keeps the machine code for the next process)."""
        key = self._key()
        self.fn = _compiled.get(key)
        if self.fn is None:
            self.fn = _compiled[key] = _load(key, self.source)

    def run(self, values):
        """Runs the segment's launches on ``values`` (one device's); raises Stale, before any ran,
        where a value it reads is not as planned."""
        dense = getattr(values, "dense_updates", False)
        if self.updates and not (dense and may_update(values, self.updates)):  # (all donated: no name asked alone)
            for name in self.updates:  # written in place where donated to the run (donation.py), else over a copy
                if not (dense and may_update(values, (name,))):
                    value = values.get(name)
                    if value is not None:
                        values[name] = value.copy()
        args = []
        for name, shape, dtype, strides in self.ext:
            value = values.get(name)
            if type(value) is not np.ndarray or value.shape != shape or value.dtype != dtype:
                raise Stale(name)
            if value.strides != strides and not value.flags.c_contiguous:  # (strides: no flags object made)
                raise Stale(name)
            args.append(value)
        for step, draw in self.draws:  # (after the checks: a Stale segment's ops draw op by op, once)
            draw(draw_context(step))
        self.runs += 1
        if self.fn is None and self._due():
            start = time.perf_counter()
            self.compile()
            _compile_seconds[0] += time.perf_counter() - start
        result = self._interpret(args) if self.fn is None else self.fn(*args, *self.fixed)
        if result >= 0:  # a launch found bad values: its op, run op by op, says what
            step = self.steps[self.indices.index(self.owner[result])]
            run_step(step, values)
            raise PeError(f"{step.op.describe()}: its loop refused its values (planned step)")
        for step in self.lod_steps:  # (none of them reads a LoD: each output's follows its inputs')
            pass_launched_lod(step, values)

    def _due(self):
        """True when the segment is to be compiled now: compiled in this process already, or
        PE_SEGMENT_COMPILE_AFTER=0 (at once: its twins compiled here first, as it calls them), or after
        that many runs once every parallel twin it calls is compiled."""
        if self._key() in _compiled or not self.compile_after:
            return True
        return not self.waiting and self.runs > self.compile_after

    def _interpret(self, args):
        """The launches called one by one from Python, each loop with the arguments the compiled segment
        passes it (the same loops: the same bits); the index of a checked launch that refused, or -1.
        A parallel twin that is not compiled yet (a first run on a machine) is not waited for: its serial
        loop runs (the same bits) while a helper process compiles it (loops.parallel_ready), and the
        segment is compiled only once every twin it calls is, so that its compile links them, not
        compiles them in this process."""
        for k, (fn, specs, checked, serial) in enumerate(self.calls):
            values = [_argument(spec, args) for spec in specs]
            if k in self.waiting:
                if parallel_ready(fn, *values):
                    self.waiting.discard(k)
                else:
                    fn, values = serial[0], [_argument(spec, args) for spec in serial[1]]
            result = fn(*values)
            if checked and result >= 0:
                return k
        return -1


class _Names:
    """The parameters of a segment's function, named as its launches' arguments are bound: ``ext`` the
    values read from outside (``x*``), ``fixed`` the plan's buffers, arrays and view shapes (``b*``),
    ``pointers`` the GEMM's C functions (``p*``)."""

    def __init__(self, plan):
        self.plan, self.ext, self.fixed, self.pointers = plan, {}, {}, {}

    def bind(self, launch_args, external):
        """The arguments' source and their specs (_argument: how an interpreted run passes them)."""
        args, specs = [], []
        for arg in launch_args:
            spec = []
            if arg[0] == "var":
                args.append(self._var(arg[1], arg[2], external, spec))
            elif arg[0] == "first":
                args.append(f"np.{arg[2].name}({self._var(arg[1], (1,), external, spec)}[0])")
                spec.append((_FIRST, spec.pop(), arg[2].type))
            elif arg[0] == "array":
                self.fixed.setdefault(("@array", id(arg[1])), (f"b{len(self.fixed)}", arg[1]))
                args.append(self.fixed[("@array", id(arg[1]))][0])
                spec.append((_FIXED, arg[1]))
            else:
                args.append(self._const(arg[1]))
                spec.append((_FIXED, _constant(arg[1])))
            specs += spec
        return args, specs

    def _var(self, name, shape, external, spec):
        fixed, ext = self.fixed, self.ext
        if name not in external:
            array = self.plan.buffers[name]
            view = array if shape is None or tuple(shape) == array.shape else array.reshape(shape)
            key = (name, view.shape)
            if key not in fixed:
                fixed[key] = (f"b{len(fixed)}", view)
            spec.append((_FIXED, view))
            return fixed[key][0]
        if name not in ext:
            ext[name] = f"x{len(ext)}"
        if shape is None or tuple(shape) == self.plan.table[name][0]:
            spec.append((_EXTERNAL, list(ext).index(name), None))
            return ext[name]
        spec.append((_EXTERNAL, list(ext).index(name), tuple(int(d) for d in shape)))
        # the view's shape passed in, not written: one source serves every batch size
        key = ("@shape", tuple(int(d) for d in shape))
        fixed.setdefault(key, (f"b{len(fixed)}", key[1]))
        return f"{ext[name]}.reshape({fixed[key][0]})"

    def _const(self, value):
        if isinstance(value, ctypes._CFuncPtr):
            self.pointers.setdefault(id(value), (f"p{len(self.pointers)}", value))
            return self.pointers[id(value)][0]
        return _literal(value)


def _source(loops, params, lines):
    """The module holding ``segment(*params)``: ``loops`` ({(module, name): alias}) imported, ``lines`` its body."""
    head = ["import numba", "import numpy as np", ""]
    head += [f"from {module} import {name} as {alias}" for (module, name), alias in loops.items()]
    body = ["", "", "@numba.njit(cache=True, nogil=True)", f"def segment({', '.join(params)}):"]
    return "\n".join([*head, *body, *(lines or ["    pass"]), "    return -1", ""])


_EXTERNAL, _FIXED, _FIRST = 0, 1, 2  # a launch argument: a value read from outside, one the plan holds, a scalar of one


def _argument(spec, args):
    if spec[0] == _FIXED:
        return spec[1]
    if spec[0] == _FIRST:
        return spec[2](_argument(spec[1], args).reshape(-1)[0])
    value = args[spec[1]]
    return value if spec[2] is None else value.reshape(spec[2])


def _constant(value):
    """A launch's number as the compiled segment passes it (its literal's type: _literal)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    return value  # (a float, a numpy float scalar of its dtype, a C function)


def _c_strides(shape, dtype):
    """The strides of a C-contiguous array of ``shape`` and ``dtype``."""
    return np.empty(shape, dtype).strides  # (its pages are never touched)


def _loop_name(fn):
    name = module_name(fn)
    if name is None:
        raise PeError(f"launch loop {fn.py_func.__qualname__} is not a module-level name")
    return name


def _numba_version():
    import numba

    return numba.__version__


def cache_dir():
    """Where segments' sources and numba's cache of them go (numba's cache: numba_cache.py)."""
    return os.path.join(user_cache.root(), "segments")


def _load(key, source):
    """The function ``segment`` of ``source``, kept as ``pe_segment_<key>.py`` in cache_dir() (numba's
    cache of it keyed to that file) and executed from ``source`` itself, never from what the folder
    holds: a file there that is not ``source`` (planted, damaged, a symlink, a FIFO) is replaced,
    with one warning, and no bytecode (``.pyc``) is ever looked for (what else the folder holds is
    removed, with one warning: user_cache.sweep). Where the folder cannot be
    written, compiled in memory."""
    name = f"pe_segment_{key}"
    numba_cache.install()
    try:
        folder = user_cache.folder("segments")
        user_cache.sweep(folder, r"pe_segment_[0-9a-f]{24}\.py")  # (a __pycache__ planted there: removed)
        path = os.path.join(folder, name + ".py")
        try:
            kept = user_cache.read(path)
        except user_cache.Foreign:
            kept = b""
        if kept != source.encode("utf-8"):
            if kept is not None:
                user_cache.warn("segment", f"cached segment {path} is not the source pe generates: replaced, not run")
            user_cache.write(path, source.encode("utf-8"))
    except OSError:
        return _in_memory(name, source)
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module
    exec(compile(source, path, "exec"), module.__dict__)  # noqa: S102 (the source pe generated, not the file's)
    return module.segment


def _in_memory(name, source):
    namespace = {}
    exec(compile(source.replace("cache=True", "cache=False"), f"<{name}>", "exec"), namespace)  # noqa: S102
    return namespace["segment"]
