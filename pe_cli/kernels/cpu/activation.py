import numpy as np


def relu(ins, attrs):
    x = ins["X"]
    return {"Out": np.maximum(x, 0, dtype=x.dtype)}


def relu_grad(ins, attrs):
    out, dout = ins["Out"], ins["Out@GRAD"]
    return {"X@GRAD": dout * (out > 0)}
