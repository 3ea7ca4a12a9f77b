"""momentum and merged_momentum on CUDA: Fluid's update kernel (optimizer.py, its launches) with Paddle 2.x's
gradient terms and master copy around it (pe_cli/kernels/momentum_terms.py)."""

from ..momentum_terms import paddle_momentum
from . import elementwise, manipulation, optimizer

momentum, merged_momentum = paddle_momentum(
    optimizer.momentum, elementwise.scale, elementwise.elementwise_add, manipulation.cast
)
