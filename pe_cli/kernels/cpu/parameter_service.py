"""Kernels of ops/parameter_service.py: the services they need are not in pe; each says so in one line."""

from ...base.errors import PeError


def _needs(op, service):
    def kernel(ins, attrs):
        raise PeError(
            f"op '{op}' needs {service}, which pe does not have; a program that runs it needs "
            f"Fluid's own build with that service"
        )

    kernel.__name__ = op
    return kernel


_BOXPS = "BoxPS (Baidu's GPU parameter server, a PaddlePaddle build WITH_BOX_PS)"
_PSLIB = "pslib (Baidu's fleet parameter server, a PaddlePaddle build WITH_PSLIB)"
pull_box_sparse = _needs("pull_box_sparse", _BOXPS)
push_box_sparse = _needs("push_box_sparse", _BOXPS)
pull_sparse = _needs("pull_sparse", _PSLIB)
push_sparse = _needs("push_sparse", _PSLIB)
pull_sparse_v2 = _needs("pull_sparse_v2", _PSLIB)
push_sparse_v2 = _needs("push_sparse_v2", _PSLIB)
push_dense = _needs("push_dense", _PSLIB)
