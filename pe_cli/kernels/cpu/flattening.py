"""flatten_contiguous_range's out-kernel (pe_cli/ops/flattening.py; its meta rule: shapes/reshaping.flatten_range_meta):
the reshaping ops' one (Out is X in another shape, a view where X is C-contiguous, XShape holds nothing: both made
where the outputs are, kernels/structured.py), bound by object in the op's definition."""

from .manipulation import reshaped_out as flatten_contiguous_range_out  # noqa: F401 (bound in ops/flattening.py)
