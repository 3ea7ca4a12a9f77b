"""momentum and merged_momentum on the CPU: momentum is a structured kernel (its meta rule in
pe_cli/shapes/optimizer.py, its out-kernel in optimizer_out.py: Fluid's update with Paddle 2.x's gradient
terms and master copy), the two as a kernel in optimizer.py; merged_momentum is that kernel over its lists
(pe_cli/kernels/momentum_terms.py)."""

from ..momentum_terms import merged_over_lists
from .optimizer import momentum

merged_momentum = merged_over_lists(momentum)
