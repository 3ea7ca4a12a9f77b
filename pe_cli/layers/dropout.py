"""dropout of Fluid 1.8's ``fluid.layers``."""

__all__ = ["dropout"]
from .checks import FLOATS, check_variable_and_dtype
from .helper import LayerHelper


def dropout(x, dropout_prob, is_test=False, seed=None, name=None, dropout_implementation="downgrade_in_infer"):
    """Drops elements with probability dropout_prob while training (see the dropout op for the two
    implementations); a given seed (or the program's random_seed) fixes the mask."""
    check_variable_and_dtype(x, "x", FLOATS, "dropout")
    helper = LayerHelper("dropout", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    mask = helper.create_variable_for_type_inference("uint8", stop_gradient=True)
    if (seed is None or seed == 0) and helper.main_program.random_seed != 0:
        seed = helper.main_program.random_seed
    helper.append_op(
        "dropout",
        {"X": [x]},
        {"Out": [out], "Mask": [mask]},
        {
            "dropout_prob": dropout_prob,
            "is_test": is_test,
            "fix_seed": seed is not None,
            "seed": seed if seed is not None else 0,
            "dropout_implementation": dropout_implementation,
        },
    )
    return out
