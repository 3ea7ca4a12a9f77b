"""``paddle.static.nn.sequence_lod`` (Paddle 2.6): the layers over LoD sequences under the module name
2.6 gives them; each is pe's Fluid 1.8 layer of the same name (2.6 kept their signatures)."""

from ....layers import (
    sequence_concat,
    sequence_conv,
    sequence_enumerate,
    sequence_expand,  # noqa: F401
    sequence_expand_as,
    sequence_first_step,
    sequence_last_step,
    sequence_pad,
    sequence_pool,
    sequence_reshape,
    sequence_reverse,
    sequence_scatter,
    sequence_slice,
    sequence_softmax,
    sequence_unpad,
)

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
    "sequence_reverse",
]
