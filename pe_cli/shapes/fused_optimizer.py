"""The meta rules (shapes/structured.py) of the fused update ops (ops/fused_optimizer.py: fused_sgd, fused_momentum,
fused_adam): each the meta rule of its update op (sgd's, momentum's, adam's: shapes/optimizer.py) run on each
parameter's entries, LearningRate shared; a list output holds the (shape, dtype) each parameter's update gives.
The variant is "each", ``fresh``: the out-kernel (kernels/cpu/fused_optimizer.py) runs the update op's kernel on
each parameter in turn, in place over Param and its state where the executor lets the update write there (as the
separate updates do), and puts the values those calls made."""

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
