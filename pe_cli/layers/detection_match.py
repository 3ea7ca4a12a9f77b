"""SSD's matching layers of Fluid 1.8's ``fluid.layers`` (python/paddle/fluid/layers/detection.py), with
its signatures: bipartite_match (priors matched to ground-truth boxes by a distance matrix) and
target_assign (each prior's target row, or mismatch_value, and its weight); ssd_loss composes them
(layers/detection_loss.py)."""

__all__ = ["bipartite_match", "target_assign"]
from ..base.errors import PeError
from .helper import LayerHelper


def bipartite_match(dist_matrix, match_type=None, dist_threshold=None, name=None):
    """Greedy bipartite matching per instance of dist_matrix [K, M] (a LoDTensor over instances):
    (matched row per column [N, M] int32, -1 for none; its distance [N, M])."""
    helper = LayerHelper("bipartite_match", name=name)
    indices = helper.create_variable_for_type_inference("int32")
    dist = helper.create_variable_for_type_inference(dist_matrix.dtype)
    attrs = {}
    if match_type is not None:
        attrs["match_type"] = match_type
    if dist_threshold is not None:
        attrs["dist_threshold"] = float(dist_threshold)
    helper.append_op(
        "bipartite_match",
        {"DistMat": [dist_matrix]},
        {"ColToRowMatchIndices": [indices], "ColToRowMatchDist": [dist]},
        attrs,
    )
    return indices, dist


def target_assign(input, matched_indices, negative_indices=None, mismatch_value=None, name=None):
    """Classification or regression targets per prediction: (out [N, M, K], out_weight [N, M, 1])
    from input [rows, P, K] (a LoDTensor over the images) and matched_indices [N, M] int32."""
    helper = LayerHelper("target_assign", name=name)
    if mismatch_value is not None and not isinstance(mismatch_value, (int, float)):
        raise PeError(f"target_assign: mismatch_value={mismatch_value!r} must be a number")
    out = helper.create_variable_for_type_inference(input.dtype)
    weight = helper.create_variable_for_type_inference("float32")
    inputs = {"X": [input], "MatchIndices": [matched_indices]}
    if negative_indices is not None:
        inputs["NegIndices"] = [negative_indices]
    attrs = {} if mismatch_value is None else {"mismatch_value": int(mismatch_value)}
    helper.append_op("target_assign", inputs, {"Out": [out], "OutWeight": [weight]}, attrs)
    return out, weight
