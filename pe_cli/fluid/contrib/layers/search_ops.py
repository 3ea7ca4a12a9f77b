"""Fluid 1.8's contrib layers whose ops pe does not have yet (text-matching, pyramid hashing,
tree convolution): each name resolves and raises FluidUnsupported."""
from ....base.errors import unsupported

__all__ = ["match_matrix_tensor", "var_conv_2d", "sequence_topk_avg_pooling", "search_pyramid_hash",
           "tree_conv"]

_WHY = "its op is not in pe yet"
match_matrix_tensor = unsupported("fluid.contrib.match_matrix_tensor", _WHY)
var_conv_2d = unsupported("fluid.contrib.var_conv_2d", _WHY)
sequence_topk_avg_pooling = unsupported("fluid.contrib.sequence_topk_avg_pooling", _WHY)
search_pyramid_hash = unsupported("fluid.contrib.search_pyramid_hash", _WHY)
tree_conv = unsupported("fluid.contrib.tree_conv", _WHY)
