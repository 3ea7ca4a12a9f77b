import numpy as np


def sgd(ins, attrs):
    p, g, lr = ins["Param"], ins["Grad"], ins["LearningRate"]
    return {"ParamOut": p - lr.reshape(()).astype(p.dtype) * g}
