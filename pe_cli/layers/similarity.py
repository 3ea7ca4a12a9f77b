"""Similarity layers with Fluid 1.x signatures."""

from .checks import check_variable_and_dtype
from .helper import LayerHelper

__all__ = ["cos_sim"]


def cos_sim(X, Y):
    """The cosine similarity of each row of X with its row of Y (or with Y's one row): [N, 1]."""
    check_variable_and_dtype(X, "X", ("float32",), "cos_sim")
    check_variable_and_dtype(Y, "Y", ("float32",), "cos_sim")
    helper = LayerHelper("cos_sim", x=X)
    out = helper.create_variable_for_type_inference(X.dtype)
    xnorm = helper.create_variable_for_type_inference(X.dtype)
    ynorm = helper.create_variable_for_type_inference(X.dtype)
    helper.append_op("cos_sim", {"X": [X], "Y": [Y]}, {"Out": [out], "XNorm": [xnorm], "YNorm": [ynorm]})
    return out
