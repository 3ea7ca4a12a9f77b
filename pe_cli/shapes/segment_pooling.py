"""The meta rules of segment_pool and segment_pool_grad (ops/segment_pooling.py), ``fresh`` variants ("numpy": the
arrays the numpy forms in kernels/<device>/segment_pooling.py made, handed over): Out [segments, X's other dims] and
SummedIds [segments, 1] of X's dtype, segments the last id + 1 (-1: the values give it); X@GRAD one row per id
(SegmentIds' elements) of Out@GRAD's other dims, X's dtype."""

import math

import numpy as np

from .structured import Meta


def segment_pool_meta(attrs, ins, facts):
    """segment_pool's Out and SummedIds, their rows the segments' count (-1)."""
    x = ins["X"]
    dtype = np.dtype(x.dtype)
    outputs = {"Out": ((-1,) + tuple(x.shape)[1:], dtype), "SummedIds": ((-1, 1), dtype)}
    return Meta(outputs, "numpy", fresh=True)


def segment_pool_grad_meta(attrs, ins, facts):
    """segment_pool_grad's X@GRAD: a row of Out@GRAD per id."""
    rows = math.prod(ins["SegmentIds"].shape)
    shape = (rows,) + tuple(ins["Out@GRAD"].shape)[1:]
    return Meta({"X@GRAD": (shape, np.dtype(ins["X"].dtype))}, "numpy", fresh=True)
