"""Meta rules of the ops that rearrange a tensor's elements (ops/rearranging.py): reverse, flip and roll and
roll's gradient, structured kernels (shapes/structured.py; their CPU out-kernels: kernels/cpu/manipulation.py).
Out is X's shape and dtype."""

from .manipulation_run import reverse_axes
from .structured import Meta


def _reversed(x, axes):
    """ "flip" along ``axes`` (args: numpy's flip of X copied into Out), or "copy" (no axis: a copy of X)."""
    return Meta({"Out": (tuple(x.shape), x.dtype)}, "flip" if axes else "copy", args=(axes,))


def reverse_meta(attrs, ins, facts):
    """reverse's Out: X reversed along each dim ``axis`` names (once however often named; rank above 6 refused,
    as Fluid's kernels)."""
    x = ins["X"]
    return _reversed(x, reverse_axes(len(x.shape), attrs))


def flip_meta(attrs, ins, facts):
    """flip's Out: reverse's, along ``dims`` (none: a copy of X, as Paddle 2.6's)."""
    x = ins["X"]
    return _reversed(x, reverse_axes(len(x.shape), {"axis": attrs["dims"]}))


def roll_meta(attrs, ins, facts):
    """roll's Out (roll_grad's X@GRAD: Out@GRAD rolled back): "flat" (Paddle 2.x's roll of X flattened: one shift,
    no dims), "roll" (numpy's roll along dims; fresh), "copy" (no dims: a copy of X)."""
    x, slot = (ins["X"], "Out") if "Out@GRAD" not in ins else (ins["Out@GRAD"], "X@GRAD")
    dims = list(attrs["dims"])
    variant = "flat" if not dims and len(attrs["shifts"]) == 1 else "roll" if dims else "copy"
    return Meta({slot: (tuple(x.shape), x.dtype)}, variant, fresh=True)
