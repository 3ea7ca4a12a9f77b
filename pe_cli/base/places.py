"""Places name the device an executor runs on: ``CPUPlace()`` or ``CUDAPlace(i)``.

Several CPU devices come from ``CPU_NUM`` and several GPUs from ``CUDA_VISIBLE_DEVICES``.
"""

import os
import sys

from .errors import PeError
from .limits import check


class Place:
    kind = "cpu"
    device_id = 0
    _TYPE_INDEX = 1  # Fluid's place variant: CUDAPlace 0, CPUPlace 1, CUDAPinnedPlace 2

    def __eq__(self, other):
        return type(self) is type(other) and self.device_id == other.device_id

    def __hash__(self):
        return hash((self.kind, self.device_id))

    def _equals(self, other):
        """Fluid's core.Place._equals: the same kind of device, the same device."""
        return self == other

    def _type(self):
        """Fluid's core.Place._type: which kind of place (CUDAPlace 0, CPUPlace 1, CUDAPinnedPlace 2)."""
        return self._TYPE_INDEX


class CPUPlace(Place):
    kind = "cpu"

    def __init__(self, device_id=0):
        self.device_id = device_id

    def __repr__(self):
        return "CPUPlace" + (f"({self.device_id})" if self.device_id else "()")


class CUDAPlace(Place):
    kind = "cuda"
    _TYPE_INDEX = 0

    def __init__(self, device_id=0):
        if not isinstance(device_id, int) or device_id < 0:
            raise PeError(f"CUDAPlace: device_id must be a non-negative int, got {device_id!r}")
        self.device_id = device_id

    def __repr__(self):
        return f"CUDAPlace({self.device_id})"


class CUDAPinnedPlace(Place):
    kind = "cpu"
    _TYPE_INDEX = 2

    def __repr__(self):
        return "CUDAPinnedPlace()"


_warned_cpu_num = False


def cpu_device_count():
    """Devices for data parallelism on the CPU: ``CPU_NUM``, else 1 (with a one-time hint)."""
    global _warned_cpu_num
    value = os.environ.get("CPU_NUM")
    if value is None:
        if not _warned_cpu_num:
            _warned_cpu_num = True
            print("pe: CPU_NUM is not set, using 1 CPU device; set CPU_NUM=N to run on N.", file=sys.stderr)
        return 1
    try:
        n = int(value)
        if n < 1:
            raise ValueError
    except ValueError:
        raise PeError(f"CPU_NUM={value!r} is not a positive integer")
    return check("devices", n, "CPU_NUM")


def cpu_places(device_count=None):
    n = cpu_device_count() if device_count is None else check("devices", device_count, "cpu_places' device_count")
    return [CPUPlace(i) for i in range(n)]


def place_named(name):
    """The place Paddle 2.x names ``cpu``, ``gpu`` or ``gpu:N`` (its Executor takes them); another
    name is a ValueError."""
    kind, _, number = name.strip().lower().partition(":")
    if kind == "cpu" and not number:
        return CPUPlace()
    if kind == "gpu" and (not number or number.isdigit()):
        return CUDAPlace(int(number or 0))
    raise ValueError(f"Executor: the place '{name}' must be 'cpu', 'gpu' or 'gpu:N'")
