"""The continuous_value_model layer (ops/cvm.py) with Fluid 1.8's signature."""

__all__ = ["continuous_value_model"]
from .helper import LayerHelper
from .checks import fluid_checks


@fluid_checks("continuous_value_model", input=("float16", "float32", "float64"))
def continuous_value_model(input, cvm, use_cvm=True):
    """CTR features whose first two columns are show and click counts: with ``use_cvm`` they become
    log(show + 1) and log(click + 1) - log(show + 1), else they are dropped. The gradient is
    Fluid's: ``cvm`` [N, 2] (per sequence for LoD input) on those columns."""
    helper = LayerHelper("cvm", input=input)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("cvm", {"X": [input], "CVM": [cvm]}, {"Y": [out]}, {"use_cvm": bool(use_cvm)})
    return out
