"""The reduction family's rules shared by the kernels of both devices: the axes a reduction folds and the
shape of a result with no dims left."""


def scalar_shape(zero_dim):
    """The shape of a reduction's result with no dims left: 0-D where the op says so (``zero_dim``:
    ``Operator.zero_dim``, a paddle.* call in a Paddle 2.x program, framework/program_release.py;
    a kernel's ``ctx.zero_dim``), [1] as in Fluid 1.8."""
    return () if zero_dim else (1,)


def reduces_all(attrs):
    """Whether a reduction folds every dim: ``reduce_all``, or an empty ``dim`` (Paddle 2.x saves
    ``dim=[]`` for a reduction over all axes, and its kernels read it so; Fluid 1.8 refused an empty
    dim; docs/COMPAT.md, "Reductions saved with dim=[]")."""
    return bool(attrs["reduce_all"]) or not len(attrs["dim"])


def reduce_axes(x, attrs):
    return tuple(range(x.ndim)) if reduces_all(attrs) else tuple(sorted({d % max(x.ndim, 1) for d in attrs["dim"]}))


def kl_scale(x, reduction):
    """kldiv_loss's divisor: X's size for reduction 'mean', its batch for 'batchmean', else 1."""
    return {"mean": x.size, "batchmean": x.shape[0] if x.ndim else 1}.get(reduction, 1)
