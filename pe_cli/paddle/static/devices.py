"""``paddle.static``'s names about where ops run: ``device_guard`` (accepted: pe runs a program's ops
on the place its executor was given, which computes the same values), ``xpu_places`` and the IPU names
(refused in one line: pe has no XPU or IPU kernels)."""

import contextlib
import re

from ...base.errors import unsupported

__all__ = ["device_guard", "xpu_places", "IpuCompiledProgram", "IpuStrategy", "ipu_shard_guard", "set_ipu_shard"]

_DEVICE = re.compile(r"(cpu|(gpu|xpu)(:\d+)?)?\Z")
_IPU = "pe has no IPU kernels (Graphcore IPUs are not supported)"

xpu_places = unsupported("paddle.static.xpu_places", "pe has no XPU kernels")
IpuCompiledProgram = unsupported("paddle.static.IpuCompiledProgram", _IPU)
IpuStrategy = unsupported("paddle.static.IpuStrategy", _IPU)
ipu_shard_guard = unsupported("paddle.static.ipu_shard_guard", _IPU)
set_ipu_shard = unsupported("paddle.static.set_ipu_shard", _IPU)


@contextlib.contextmanager
def device_guard(device=None):
    """Paddle places the ops built in this block on ``device`` ('cpu', 'gpu', 'gpu:N', None); pe
    checks the name and runs them where its executor runs the program: the values are the same."""
    if device is not None and not (isinstance(device, str) and _DEVICE.match(device)):
        raise ValueError(
            f"The Attr(device) should be 'cpu', 'xpu', 'gpu' (or 'gpu:N'), and it can also be empty "
            f"string or None when there is no need to specify device. But received {device!r}"
        )
    yield
