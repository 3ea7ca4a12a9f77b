"""CPU out-kernels of ops/parameter_service.py (meta rules: shapes/services.py): the services they need are not in
pe; each says so in one line. Each kernel by name is its adapter (kernels/cuda/parameter_service.py's HOST_OPS)."""

from ...base.errors import PeError
from ...shapes import services as rules
from ..structured import adapter


def _needs(op, service):
    def out(ins, outs, attrs, meta):
        raise PeError(
            f"op '{op}' needs {service}, which pe does not have; a program that runs it needs "
            f"Fluid's own build with that service"
        )

    out.__name__ = out.__qualname__ = op + "_out"
    out.launches = None
    return out


_BOXPS = "BoxPS (Baidu's GPU parameter server, a PaddlePaddle build WITH_BOX_PS)"
_PSLIB = "pslib (Baidu's fleet parameter server, a PaddlePaddle build WITH_PSLIB)"
pull_box_sparse_out = _needs("pull_box_sparse", _BOXPS)
push_box_sparse_out = _needs("push_box_sparse", _BOXPS)
pull_sparse_out = _needs("pull_sparse", _PSLIB)
push_sparse_out = _needs("push_sparse", _PSLIB)
pull_sparse_v2_out = _needs("pull_sparse_v2", _PSLIB)
push_sparse_v2_out = _needs("push_sparse_v2", _PSLIB)
push_dense_out = _needs("push_dense", _PSLIB)

pull_box_sparse = adapter(rules.pull_box_sparse_meta, pull_box_sparse_out, "pull_box_sparse")
pull_sparse = adapter(rules.pull_sparse_meta, pull_sparse_out, "pull_sparse")
pull_sparse_v2 = adapter(rules.pull_sparse_v2_meta, pull_sparse_v2_out, "pull_sparse_v2")
push_box_sparse = adapter(rules.push_meta, push_box_sparse_out, "push_box_sparse")
push_sparse = adapter(rules.push_meta, push_sparse_out, "push_sparse")
push_sparse_v2 = adapter(rules.push_meta, push_sparse_v2_out, "push_sparse_v2")
push_dense = adapter(rules.push_meta, push_dense_out, "push_dense")
