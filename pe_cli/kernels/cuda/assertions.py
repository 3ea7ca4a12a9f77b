"""assert on a GPU place: its CPU twin on the host (kernels/cuda/_host.py)."""

from ..cpu import assertions as _cpu
from ._host import on_host

globals()["assert"] = on_host(_cpu.assert_)
