"""CUDA kernels of the decompositions: their CPU twins on the host (LAPACK's algorithms are
sequential; these ops serve small matrices: pinv, cond, lstsq)."""

from ._host import host_ops

HOST_OPS = host_ops("svd", "svd_grad", "lstsq")
