"""A numeric target's way back to its column's units: the steps that undo its data.transforms and
its numeric preprocessing (preprocessing.py), applied to predictions by ``pe predict``, ``pe infer``
and eval.json's metrics, and written as nodes into an ONNX export."""

import numpy as np

from .readers import DataError


def unscaling(state, transforms):
    """[(op, constant)] that take a numeric target feed's values as the model sees them back to its
    column's units: the inverse of its data.transforms (``scale``, ``normalize``; the last first)
    and then of its numeric preprocessing (``state``, or None): ``* divide + shift``, and
    ``exp(y) - 1`` for scaling: log. None when nothing changes the values (cast and reshape do not)."""
    steps = []
    for item in reversed(transforms or []):
        ((kind, arg),) = item.items()
        if kind == "scale":
            steps.append(("Div", np.asarray(arg, np.float64)))
        elif kind == "normalize":
            steps += [("Mul", np.asarray(arg["std"], np.float64)), ("Add", np.asarray(arg["mean"], np.float64))]
        elif kind == "one_hot":
            return None
    if state is not None and state["kind"] == "numeric":
        steps += [("Mul", np.asarray(state["divide"], np.float64)), ("Add", np.asarray(state["shift"], np.float64))]
        if state["scaling"] == "log":
            steps += [("Exp", None), ("Sub", np.float64(1))]
    return steps or None


_STEP = {"Mul": np.multiply, "Add": np.add, "Div": np.divide, "Sub": np.subtract}


def unscaled(steps, values):
    """``values`` [N, columns] through the ``unscaling`` steps, in float64, back in their dtype."""
    values = np.asarray(values)
    y = values.astype(np.float64).reshape(len(values), -1)
    for op, const in steps:
        if const is not None and const.size not in (1, y.shape[1]):
            raise DataError(
                f"the prediction has {y.shape[1]} value(s) per sample; the target was scaled with {const.size}", ()
            )
        y = np.exp(y) if op == "Exp" else _STEP[op](y, const)
    return y.reshape(values.shape).astype(values.dtype)
