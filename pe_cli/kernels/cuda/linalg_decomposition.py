"""CUDA kernels of the decompositions: their CPU twins on the host (LAPACK's algorithms are
sequential; these ops serve small matrices: pinv, cond, lstsq)."""

from ..cpu import linalg_decomposition as _cpu
from ._host import on_host

svd = on_host(_cpu.svd)
svd_grad = on_host(_cpu.svd_grad)
lstsq = on_host(_cpu.lstsq)
