"""Fluid 1.8's ``layers.sequence_lod``: the layers over LoD sequences."""

from .sequence import sequence_first_step, sequence_last_step, sequence_pool, sequence_softmax
from .sequence_conv import sequence_conv
from .sequence_rows import sequence_expand, sequence_mask, sequence_pad, sequence_reverse, sequence_unpad
from .sequence_shape import sequence_concat, sequence_expand_as, sequence_reshape, sequence_slice
from .sequence_window import sequence_enumerate, sequence_scatter

__all__ = [
    "sequence_conv",
    "sequence_softmax",
    "sequence_pool",
    "sequence_concat",
    "sequence_first_step",
    "sequence_last_step",
    "sequence_slice",
    "sequence_expand",
    "sequence_expand_as",
    "sequence_pad",
    "sequence_unpad",
    "sequence_reshape",
    "sequence_scatter",
    "sequence_enumerate",
    "sequence_mask",
    "sequence_reverse",
]
