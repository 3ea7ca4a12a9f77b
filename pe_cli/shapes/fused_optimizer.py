"""The meta rules (shapes/structured.py) of the fused update ops (ops/fused_optimizer.py: fused_sgd, fused_momentum,
fused_adam): each the meta rule of its update op (sgd's, momentum's, adam's: shapes/optimizer.py) run on each
parameter's entries, LearningRate shared; a list output holds the (shape, dtype) each parameter's update gives.
merged_momentum's (Paddle 2.x's, ops/fused_optimizer.py) is momentum's on each parameter's entries and attributes
(``merged_entries``: its LearningRate one shared or one each, its regularization one entry each).
The variant is "each", ``fresh``: the out-kernel (kernels/cpu/fused_optimizer.py) runs the update op's kernel on
each parameter in turn, in place over Param and its state where the executor lets the update write there (as the
separate updates do), and puts the values those calls made."""

from .optimizer import momentum_meta
from .structured import Meta

SHARED = "LearningRate"


def fused_update_meta(base_meta):
    """The meta rule of the fused op of the update whose meta rule is ``base_meta``."""

    def meta(attrs, ins, facts):
        slots = [slot for slot in ins if slot != SHARED]
        outputs = {}
        for i in range(len(ins["Param"])):
            one = dict({slot: ins[slot][i] for slot in slots}, LearningRate=ins[SHARED])
            for slot, spec in base_meta(attrs, one, facts).outputs.items():
                outputs.setdefault(slot, []).append(spec)
        return Meta(outputs, "each", fresh=True)

    meta.__name__ = meta.__qualname__ = f"fused_{base_meta.__name__}"
    return meta


def merged_entries(ins, attrs):
    """merged_momentum's updates: (inputs, attributes) of the i-th parameter's momentum, for each i (the i-th entry of
    each list, LearningRate's where it has one per parameter, else its one; regularization_method and
    regularization_coeff's i-th entries, or none where they are empty)."""
    lrs, methods, coeffs = (
        ins["LearningRate"],
        attrs.get("regularization_method") or [],
        attrs.get("regularization_coeff") or [],
    )
    for i in range(len(ins["Param"])):
        one_attrs = dict(
            attrs,
            regularization_method=methods[i] if methods else "",
            regularization_coeff=coeffs[i] if coeffs else 0.0,
        )
        one_ins = {slot: values[i] for slot, values in ins.items() if slot != "LearningRate" and values}
        one_ins["LearningRate"] = lrs[i] if len(lrs) > 1 else lrs[0]
        yield one_ins, one_attrs


def merged_momentum_meta(attrs, ins, facts):
    """merged_momentum's: momentum's rule on each parameter's entries and attributes, variant "each" (``fresh``)."""
    outputs = {}
    for one_ins, one_attrs in merged_entries(ins, attrs):
        for slot, spec in momentum_meta(one_attrs, one_ins, facts).outputs.items():
            outputs.setdefault(slot, []).append(spec)
    return Meta(outputs, "each", fresh=True)
