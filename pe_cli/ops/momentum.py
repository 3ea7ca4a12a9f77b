"""Momentum updates: Fluid 1.8's momentum with Paddle 2.x's attributes, and merged_momentum (Paddle 2.x's
momentum over lists of parameters, registered with the other list updates in fused_optimizer.py).

Both write ParamOut (the same variable as Param) and VelocityOut (the same as Velocity); they run Fluid's
momentum update, with Paddle 2.x's gradient terms and master copy around it: momentum a structured kernel
on the CPU (its meta rule in pe_cli/shapes/optimizer.py, its out-kernel in kernels/cpu/optimizer_out.py), the
CUDA kernels pe_cli/kernels/momentum_terms.py's.
"""

from ..kernels.cpu import optimizer_out as cpu_updates
from ..shapes import optimizer as meta_rules
from .define import Attr, Structured, register
from .optimizer import NUMBER, infer_update

MOMENTUM_ATTRS = {
    "mu": Attr(0.9, *NUMBER),
    "use_nesterov": False,
    # Paddle 2.x's (pe_cli/kernels/momentum_terms.py): the gradient's terms, a master copy
    "regularization_method": Attr("", lambda v: v in ("", "l2_decay"), "'' or 'l2_decay'"),
    "regularization_coeff": 0.0,
    "rescale_grad": 1.0,
    "multi_precision": False,
}

register(
    "momentum",
    kernel_module="momentum",
    inputs=["Param", "Grad", "Velocity", "LearningRate", "MasterParam?"],
    outputs=["ParamOut", "VelocityOut", "MasterParamOut?"],
    attrs=MOMENTUM_ATTRS,
    infer=infer_update([("VelocityOut", "Velocity"), ("MasterParamOut", "MasterParam")]),
    traits=("selected_rows", "updates_in_place"),
    structured=Structured(meta=meta_rules.momentum_meta, cpu=cpu_updates.MOMENTUM),
    doc="VelocityOut = mu * Velocity + Grad; ParamOut = Param - LearningRate * VelocityOut, "
    "or with use_nesterov Param - LearningRate * (Grad + mu * VelocityOut). A row-sparse Grad "
    "updates every row as Fluid's does (Grad is 0 on the rows it does not hold). Paddle 2.x's "
    "attributes: Grad is first Grad * rescale_grad (+ regularization_coeff * Param with "
    "regularization_method 'l2_decay'); with multi_precision and a MasterParam, the update runs on "
    "MasterParam (MasterParamOut) and ParamOut is it cast to Param's dtype.",
)
