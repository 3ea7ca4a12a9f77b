"""Fluid 1.8's ``layers.sequence_lod``: the layers over LoD sequences."""

from .fluid_module import resolver

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
__getattr__ = resolver(__name__, __all__)
