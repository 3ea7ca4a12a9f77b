"""Plain values of Fluid's core (``paddle.fluid.core``): the profiler's enums (ProfilerState,
EventSortingKey, TracerOption) and their members at module level, the special variable names
(``kEmptyVarName()`` is ``@EMPTY@``), what this build has (``is_compiled_with_*``), and the helpers
of the Python loader of Fluid's core (core.py: ``avx_supported``, ``get_glibc_ver``, ...)."""

from __future__ import print_function  # noqa: F401 -- Fluid's core module has these names

import enum
import os
import platform
import site  # noqa: F401
import subprocess
import sys  # noqa: F401
import types
import warnings  # noqa: F401

from ..ops.define import GRAD_SUFFIX


class ProfilerState(enum.IntEnum):
    kDisabled, kCPU, kCUDA, kAll = 0, 1, 2, 3


class EventSortingKey(enum.IntEnum):
    kDefault, kCalls, kTotal, kMin, kMax, kAve = 0, 1, 2, 3, 4, 5


class TracerOption(enum.IntEnum):
    kDefault, kOpDetail, kAllOpDetail = 0, 1, 2


kDisabled, kCPU, kCUDA, kAll = ProfilerState
kDefault, kCalls, kTotal, kMin, kMax, kAve = EventSortingKey
kOpDetail, kAllOpDetail = TracerOption.kOpDetail, TracerOption.kAllOpDetail


def kEmptyVarName():  # noqa: N802 -- Fluid's names
    return "@EMPTY@"


def kTempVarName():  # noqa: N802
    return "@TEMP@"


def kGradVarSuffix():  # noqa: N802
    return GRAD_SUFFIX


def kZeroVarSuffix():  # noqa: N802
    return "@ZERO"


def kNewGradSuffix():  # noqa: N802
    return "@NEWGRAD@"


def kControlDepVarName():  # noqa: N802
    return "__control_var"


def empty_var_name():
    return kEmptyVarName()


def loaded_var_suffix():
    """The suffix of a variable loaded for a dygraph Layer's state (``@LOADED``)."""
    return "@LOADED"


var_names = types.SimpleNamespace(empty=kEmptyVarName, temp=kTempVarName)


def is_compiled_with_brpc():
    """False: pe's parameter servers talk over MPI, not brpc."""
    return False


def is_compiled_with_dist():
    """True: pe runs Fluid's distributed modes (parameter servers and collective trainers, over MPI)."""
    return True


def is_compiled_with_mkldnn():
    """False: pe's CPU kernels are numba's, with no MKL-DNN (oneDNN)."""
    return False


# The loader of Fluid's core picks an AVX or a no-AVX binary; pe compiles its kernels for this CPU.
core_suffix = "so"
current_path = os.path.dirname(os.path.abspath(__file__))
has_avx_core = has_noavx_core = load_noavx = False


def avx_supported():
    """Whether this CPU has AVX (read from /proc/cpuinfo on Linux, sysctl on macOS)."""
    try:
        if sys.platform.startswith("linux"):
            with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
                return " avx" in f.read()
        if sys.platform == "darwin":
            out = subprocess.run(["sysctl", "machdep.cpu.features"], capture_output=True, text=True).stdout
            return "AVX" in out.upper()
    except OSError:
        return False
    return False


def run_shell_command(cmd):
    """The standard output of a shell command, stripped; None when it fails or prints nothing."""
    done = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    out = done.stdout.strip()
    return out if done.returncode == 0 and out else None


def get_glibc_ver():
    """The C library's version (``2.36``), as the loader reads it."""
    return platform.libc_ver()[1]


def less_than_ver(a, b):
    """True when version string ``a`` is below ``b`` (dotted numbers)."""

    def parts(v):
        return [int(p) for p in str(v).split(".") if p.isdigit()]

    return parts(a) < parts(b)


def get_dso_path(core_so, dso_name):
    """The path ``ldd`` gives for the library ``dso_name`` that ``core_so`` links, or None."""
    out = run_shell_command(f"ldd {core_so}") if core_so and os.path.exists(core_so) else None
    for line in (out or "").splitlines():
        if dso_name in line and "=>" in line:
            return line.split("=>")[1].split()[0]
    return None


def load_dso(dso_absolute_path):
    """Loads a shared library into the process (ctypes), as the loader preloads libgomp."""
    if dso_absolute_path:
        import ctypes

        ctypes.CDLL(dso_absolute_path, mode=ctypes.RTLD_GLOBAL)


def pre_load(dso_name):
    """Fluid's loader preloads a library its core binary links; pe has no core binary: nothing to load."""
    return None


def set_paddle_lib_path():
    """Puts the folder of Fluid's libraries on the loader's path; pe's are Python packages: nothing to set."""
    return None
