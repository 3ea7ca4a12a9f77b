"""Fluid 1.8's ``contrib.layers.shuffle_batch`` (ops/batch_shuffle.py)."""

import numpy as np

from ..framework import unique_name
from ..training.initializer import ConstantInitializer
from .helper import LayerHelper

__all__ = ["shuffle_batch"]


def shuffle_batch(x, seed=None):
    """x's rows (all dims but the last) in a random order. An int ``seed`` (else the program's
    random_seed, else a random one) starts a persistable seed variable that each run advances, so
    each run draws a new order; a Variable ``seed`` is used as that variable."""
    helper = LayerHelper("shuffle_batch")
    out = helper.create_variable_for_type_inference(x.dtype)
    shuffle_idx = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    if seed is None and helper.main_program.random_seed != 0:
        seed = helper.main_program.random_seed
    if seed is None:
        seed = int(np.random.randint(-65536, 65535))
    attrs = {}
    if isinstance(seed, int):
        attrs["startup_seed"] = seed
        seed = helper.create_global_variable(
            name=unique_name.generate("shuffle_batch_seed"),
            dtype="int64",
            shape=[1],
            persistable=True,
            stop_gradient=True,
        )
        helper.set_variable_initializer(seed, ConstantInitializer(float(attrs["startup_seed"])))
    helper.append_op(
        "shuffle_batch",
        {"X": [x], "Seed": [seed]},
        {"Out": [out], "ShuffleIdx": [shuffle_idx], "SeedOut": [seed]},
        attrs,
    )
    return out
