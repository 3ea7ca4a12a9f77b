"""CPU kernels of ops/linalg_fused.py (numpy's GEMMs), computing what Fluid 1.8's jit kernels do."""

import numpy as np


def fusion_repeated_fc_relu(ins, attrs):
    h, relus = np.asarray(ins["X"]), []
    for w, b in zip(ins["W"], ins["Bias"]):
        h = np.maximum(h @ w + np.reshape(b, -1), 0).astype(h.dtype, copy=False)
        relus.append(h)
    return {"ReluOut": relus[:-1], "Out": relus[-1]}


def fusion_squared_mat_sub(ins, attrs):
    x, y = np.asarray(ins["X"]), np.asarray(ins["Y"])
    squared_xy = np.square(x @ y)
    squared_x, squared_y = np.square(x), np.square(y)
    scalar = x.dtype.type(np.float32(attrs["scalar"]))  # Fluid's float attribute, in X's type
    out = (squared_xy - squared_x @ squared_y) * scalar
    return {"SquaredX": squared_x, "SquaredY": squared_y, "SquaredXY": squared_xy, "Out": out}
