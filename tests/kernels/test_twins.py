"""Every parallel twin of a CPU loop is its own function in numba's cache.

numba's cache keys a compiled loop by its function's module, name, line, bytecode and closure, and
by the argument types; not by ``parallel=True``. A twin made by jitting the serial loop's function
a second time with ``parallel=True`` therefore loads the serial loop's machine code from the cache
and runs its parts one after the other: the MLP's GEMMs took as long on 2 threads as on 1
(_blas_loops.py, found 2026-11-23). Twins are separate functions, or closures over ``range`` and
``prange``."""

import importlib
import pickle
import pkgutil

from numba.core.caching import NullCache
from numba.core.registry import CPUDispatcher

import pe_cli.kernels.cpu as cpu


def loop_modules():
    for info in pkgutil.iter_modules(cpu.__path__):
        if info.name.startswith("_") and info.name.endswith(("_loops", "_elems")):
            yield importlib.import_module(f"{cpu.__name__}.{info.name}")


def cache_key(dispatcher):
    """What numba's cache tells this loop apart by, less the argument types."""
    fn = dispatcher.py_func
    cells = tuple(cell.cell_contents for cell in fn.__closure__ or ())
    return fn.__module__, fn.__qualname__, fn.__code__.co_firstlineno, fn.__code__.co_code, pickle.dumps(cells)


def test_no_two_loops_share_a_cache_entry_with_other_options():
    seen = {}
    twins = 0
    for module in loop_modules():
        for name, value in vars(module).items():
            if not isinstance(value, CPUDispatcher) or isinstance(value._cache, NullCache):
                continue
            options = tuple(sorted(value.targetoptions.items()))
            twins += bool(value.targetoptions.get("parallel"))
            first = seen.setdefault(cache_key(value), (f"{module.__name__}.{name}", options))
            assert first[1] == options, (
                f"{module.__name__}.{name} and {first[0]} are one function to numba's cache, jitted "
                f"with other options ({dict(options)} / {dict(first[1])}): one loads the other's code"
            )
    assert twins >= 10  # the loop modules were found: the conv, pooling, GEMM, pointwise twins
