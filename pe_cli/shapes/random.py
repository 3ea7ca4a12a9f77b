"""The meta rules of the random family's ops (ops/random.py), structured kernels (shapes/structured.py): from the op's
attributes, its inputs' shapes and dtypes and the engine its context draws with, the outputs' shapes and dtypes and
the variant that computes them (the CPU out-kernels: kernels/cpu/random.py), decided once per shape signature. The
draws themselves are the call's: the out-kernels take its context (``ctx.rng``).

- uniform_random, gaussian_random, randint (of the shape attribute's shape: ShapeTensor's or ShapeTensorList's values
  replace it before the rule runs, the ops' ``attr_tensors``, as fill_constant's) and truncated_gaussian_random, randperm
  ([n]): "paddle", Paddle 2.6's engine draws them (the context's rng a ``Mt19937_64``: its ``paddle_engine``), else
  "numpy", numpy's Generator; uniform_random's diagonal (diag_num > 0) must fit in Out;
- uniform_random_batch_size_like, gaussian_random_batch_size_like: "numpy", of the shape attribute's shape with
  dim output_dim_idx Input's dim input_dim_idx (fill_constant_batch_size_like's: shapes/creation.py);
- seed ([1] int32), random_crop ("windows": Out of X's leading dims and the crop's shape, SeedOut [1] int64), poisson
  and dirichlet ("draw": their input's shape and dtype), poisson_grad ("zeros")."""

import numpy as np

from .creation import batch_size_like_meta
from .structured import Meta


def engine_variant(facts):
    """ "paddle" where the call's context draws with Paddle's engine, else "numpy"."""
    return "paddle" if getattr(facts.rng, "paddle_engine", False) else "numpy"


def check_diagonal(size, attrs, op):
    """uniform_random's diag_num > 0 (and its twins'): the flat positions i * (diag_step + 1), i < diag_num, lie in
    the output's ``size`` values."""
    diag_num, diag_step = attrs.get("diag_num", 0), attrs.get("diag_step", 0)
    if diag_num > 0 and size <= (diag_num - 1) * (diag_step + 1):
        raise ValueError(
            f"{op}: the tensor of {size} values has no room for diag_num={diag_num} "
            f"diagonal values {diag_step + 1} apart"
        )


def _shaped(attrs, facts, shape=None):
    shape = tuple(attrs["shape"] if shape is None else shape)
    return Meta({"Out": (shape, np.dtype(attrs["dtype"]))}, engine_variant(facts))


def uniform_random_meta(attrs, ins, facts):
    meta = _shaped(attrs, facts)
    check_diagonal(int(np.prod(meta.outputs["Out"][0])), attrs, "uniform_random")
    return meta


def shaped_meta(attrs, ins, facts):
    """gaussian_random's, randint's and truncated_gaussian_random's Out: the shape and dtype attributes'."""
    return _shaped(attrs, facts)


def randperm_meta(attrs, ins, facts):
    n = attrs["n"]
    if n is None or n < 1:
        raise ValueError(f"randperm: n={n} must be an int > 0")
    return _shaped(attrs, facts, (n,))


def seed_meta(attrs, ins, facts):
    return Meta({"Out": ((1,), np.dtype(np.int32))}, "seed")


def batch_size_like_random_meta(op):
    """uniform_random_batch_size_like's or gaussian_random_batch_size_like's rule: ``op``'s name in its refusal."""

    def meta(attrs, ins, facts):
        decided = batch_size_like_meta(attrs, ins, facts)
        check_diagonal(int(np.prod(decided.outputs["Out"][0])), attrs, op)
        return decided._replace(variant="numpy")

    meta.__name__ = meta.__qualname__ = f"{op}_meta"
    return meta


uniform_random_batch_size_like_meta = batch_size_like_random_meta("uniform_random_batch_size_like")
gaussian_random_batch_size_like_meta = batch_size_like_random_meta("gaussian_random_batch_size_like")


def random_crop_meta(attrs, ins, facts):
    x = ins["X"]
    shape = tuple(attrs["shape"])
    k = len(x.shape) - len(shape)
    out = {"Out": (tuple(x.shape[:k]) + shape, np.dtype(x.dtype)), "SeedOut": ((1,), np.dtype(np.int64))}
    return Meta(out, "windows")


def drawn_like_meta(slot):
    """poisson's (X) and dirichlet's (Alpha) Out: its input's shape and dtype, "draw"."""

    def meta(attrs, ins, facts):
        x = ins[slot]  # (its values' checks: the out-kernel's)
        return Meta({"Out": (tuple(x.shape), np.dtype(x.dtype))}, "draw")

    return meta


def poisson_grad_meta(attrs, ins, facts):
    d = ins["Out@GRAD"]
    return Meta({"X@GRAD": (tuple(d.shape), np.dtype(d.dtype))}, "zeros")


poisson_meta, dirichlet_meta = drawn_like_meta("X"), drawn_like_meta("Alpha")
