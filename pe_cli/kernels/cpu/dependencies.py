"""CPU out-kernels of pe_cli/ops/dependencies.py (meta rules: shapes/dependencies.py): X passed on as it is
(``Meta.aliases``: the out-kernel has nothing to compute; kernels never write their inputs, so sharing is safe),
or cast (transfer_dtype: cast's rule and out-kernel, to float16 Paddle's conversion)."""

from ...shapes import dependencies as rules
from ..structured import adapter
from .manipulation import cast_out


def passed_out(ins, outs, attrs, meta):
    """The out-kernel of an op whose outputs are its inputs as they are (its Meta's aliases): nothing to do."""


passed_out.launches = None

# the kernels by name CUDA's kernels are given (kernels/cuda/dependencies.py's HOST_OPS): the adapters
depend = adapter(rules.passed_x_meta, passed_out, "depend")
share_data = adapter(rules.passed_x_meta, passed_out, "share_data")
nop = adapter(rules.nop_meta, passed_out, "nop")
npu_identity = adapter(rules.npu_identity_meta, passed_out, "npu_identity")
share_buffer = adapter(rules.share_buffer_meta, passed_out, "share_buffer")
transfer_dtype = adapter(rules.transfer_dtype_meta, cast_out, "transfer_dtype")
