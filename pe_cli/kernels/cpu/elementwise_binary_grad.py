"""The CPU out-kernels of the binary elementwise ops' grad ops (structured kernels, pe_cli/shapes/structured.py):
``GRAD[op]`` (op: add, sub, mul, div, max, min, pow), ``out(ins, outs, attrs, meta)``, compute the variant their
meta rule chose (pe_cli/shapes/elementwise.py) into the buffers they are handed: "mid" (add's bias: X@GRAD is
Out@GRAD, Y@GRAD _pointwise_loops.sum_outer), mul's "rows" (_reduce_loops.mul_rows_grad) and "numpy" (the local
gradients summed over the broadcast dims back to each input's shape: a fresh variant). Their ``launches(op,
table, meta)``: a planned step's launches of add's "mid" and all-alias forms and of mul's "rows"
(pe_cli/executor/step_plan.py). ``elementwise_<op>_grad``: the ops' kernels over these (kernels/structured.adapter)
for the kernels that call them (fused, div_grad_grad). The forward ops: elementwise_binary.py."""

import numpy as np

from ..common import conj
from ..structured import adapter
from .elementwise_binary import MIDDLE_CODES, _handed, _sum_outer, align_both, bias_grad_launch
from .launches import Launch, by_variant, flat as flat_arg, floats, one, parts_launch
from .runtime.loops import lazy, parallel_parts, run_in_parts
from ...shapes import elementwise as meta_rules

_reduce = lazy("_reduce_loops")
_broadcast = lazy("_broadcast_loops")


# local_grads(x, y, out, dout) -> (dx, dy) in the broadcast shape (out: Out, which only div's grad op reads,
# as Fluid's). Complex: the other factor's conjugate (kernels/common.py conj). max/min: ties send the
# gradient to Y, as Fluid does.
_LOCAL_GRADS = {
    "add": lambda x, y, out, d: (d, d),
    "sub": lambda x, y, out, d: (d, -d),
    "mul": lambda x, y, out, d: (d * conj(y), d * conj(x)),
    "div": lambda x, y, out, d: (d / conj(y), -d * conj(out / y)),
    "max": lambda x, y, out, d: (d * (x > y), d * (x <= y)),
    "min": lambda x, y, out, d: (d * (x < y), d * (x >= y)),
    "pow": lambda x, y, out, d: (d * y * np.power(x, y - 1), d * _log_base(x) * np.power(x, y)),
}


def _log_base(x):
    """log(X) of pow's gradient to Y, dOut * log(X) * X^Y as Fluid 1.8's and Paddle 2.6's PowGradDY compute it:
    NaN where a float X < 0, -inf at 0 (so the gradient is NaN, or -inf where Y is 0); an integer X's 0 there (where
    Paddle casts NaN to an integer)."""
    if x.dtype.kind not in "fc":
        return np.log(np.where(x > 0, x, 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x)


def _summed(grad, dout, like, shape):
    """``grad`` summed over the dims broadcast from ``like``'s shape to Out@GRAD's (``dout``), cast to ``like``'s
    dtype and shaped as ``shape`` (the input's): numpy's sums, as kernels/cpu/elementwise.unbroadcast takes
    them; a sum's new array is shaped in place (no view, which an output would copy)."""
    # (np.broadcast_to only where the shape differs: its view of an array of the same shape is read-only,
    # and numba compiles every loop downstream once more for read-only arguments)
    if grad.shape != dout.shape:
        grad = np.broadcast_to(grad, dout.shape)
    target = like.shape
    if grad.shape != target:
        lead = grad.ndim - len(target)
        axes = tuple(range(lead)) + tuple(
            i + lead for i, d in enumerate(target) if d == 1 and grad.shape[i + lead] != 1
        )
        grad = np.asarray(grad.sum(axis=axes, keepdims=False)) if axes else grad.reshape(target)
    grad = grad.astype(like.dtype, copy=False)
    if grad.shape != shape:
        if grad.base is None and grad.flags.c_contiguous and grad is not dout:
            grad.shape = shape  # (a sum's or a cast's new array, never an input)
        else:
            grad = grad.reshape(shape)
    return grad


def _grad_numpy(local_grads):
    def variant(ins, outs, attrs, meta):
        x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
        xa, ya = align_both(x, y, attrs["axis"])
        dx, dy = local_grads(xa, ya, ins.get("Out"), dout)
        aliases, outputs = meta.aliases, meta.outputs  # (an alias is Out@GRAD, as the sum would give it)
        if "X@GRAD" in outputs and "X@GRAD" not in aliases:
            outs["X@GRAD"] = _handed(_summed(dx, dout, xa, x.shape), outputs["X@GRAD"], ins, dout)
        if "Y@GRAD" in outputs and "Y@GRAD" not in aliases:
            outs["Y@GRAD"] = _handed(_summed(dy, dout, ya, y.shape), outputs["Y@GRAD"], ins, dout)

    return variant


def _mul_rows_grad(ins, outs, attrs, meta):
    """mul's gradient where Y holds one value a row of X [rows, cols]: _reduce_loops.mul_rows_grad (in parts on the
    device's threads where large: the same bits), numpy's bits."""
    ((rows, cols),) = meta.args
    x, d = (np.ascontiguousarray(ins[slot]).reshape(rows, cols) for slot in ("X", "Out@GRAD"))
    y = np.ascontiguousarray(ins["Y"]).reshape(rows)
    dx, dy = outs["X@GRAD"].reshape(rows, cols), outs["Y@GRAD"].reshape(rows)
    run_in_parts(_reduce(), "mul_rows_grad", x.size, x, y, d, dx, dy)


def _bias_grad(ins, outs, attrs, meta):
    _sum_outer(ins["Out@GRAD"], meta.args[0], outs["Y@GRAD"])


def _middle_grad(code):
    def variant(ins, outs, attrs, meta):
        ((a, b, c),), outputs = meta.args, meta.outputs
        want_dx, want_dy = "X@GRAD" in outputs and "X@GRAD" not in meta.aliases, "Y@GRAD" in outputs
        d = np.ascontiguousarray(ins["Out@GRAD"]).reshape(a, b, c)
        dx = outs["X@GRAD"].reshape(a, b, c) if want_dx else d
        dy = outs["Y@GRAD"].reshape(a, c) if want_dy else None
        x, y, out = d, dy, d  # (what add's and sub's gradients do not read)
        if code in (MIDDLE_CODES["mul"], MIDDLE_CODES["div"]):
            x, y = np.ascontiguousarray(ins["X"]).reshape(a, b, c), np.ascontiguousarray(ins["Y"]).reshape(a, c)
        if code == MIDDLE_CODES["div"]:
            out = np.ascontiguousarray(ins["Out"]).reshape(a, b, c)
        _broadcast().middle_grad(d, x, y, out, dx, y if dy is None else dy, code, want_dx, want_dy)

    return variant


def _aliases(op, meta, dout):
    """The launch of the outputs that are Out@GRAD (Meta.aliases), or None where none is."""
    aliases = {one(op, slot, "outputs"): dout for slot in meta.aliases}
    return Launch(None, (), aliases=aliases) if aliases and None not in aliases else None


def _middle_grad_launches(op, table, meta):
    """The launches of "middle": add's and sub's X@GRAD Out@GRAD's buffer, then _broadcast_loops.middle_grad on the
    values as [a, b, c] and [a, c] (what add's and sub's gradients do not read: Out@GRAD and Y@GRAD's buffer)."""
    ((a, b, c),), outputs = meta.args, meta.outputs
    code = MIDDLE_CODES[op.type.removeprefix("elementwise_").removesuffix("_grad")]
    d, x, y, out = one(op, "Out@GRAD"), one(op, "X"), one(op, "Y"), one(op, "Out")
    dx, dy = one(op, "X@GRAD", "outputs"), one(op, "Y@GRAD", "outputs")
    want_dx, want_dy = "X@GRAD" in outputs and "X@GRAD" not in meta.aliases, "Y@GRAD" in outputs
    if code not in (MIDDLE_CODES["mul"], MIDDLE_CODES["div"]):
        x, y = d, dy
    if code != MIDDLE_CODES["div"]:
        out = d
    if None in (d, x, y, out) or (want_dx and dx is None) or (want_dy and dy is None):
        return None
    cube, rows = (a, b, c), (a, c)
    args = [("var", d, cube), ("var", x, cube), ("var", y, rows), ("var", out, cube)]
    args += [("var", dx if want_dx else d, cube), ("var", dy if want_dy else y, rows)]
    args += [("const", code), ("const", want_dx), ("const", want_dy)]
    writes = [name for name, wanted in ((dx, want_dx), (dy, want_dy)) if wanted]
    alias = _aliases(op, meta, d) if meta.aliases else None
    if meta.aliases and alias is None:
        return None
    return [*([alias] if alias else []), Launch(_broadcast().middle_grad, args, writes=writes)]


def _grad_launches(op, table, meta):
    """A planned step's launches of the gradient of add, sub, mul and div: "middle" (_middle_grad_launches); add's
    "mid": X@GRAD the buffer of Out@GRAD and Y@GRAD sum_outer's (serial) over Out@GRAD as it lies; mul's "rows"
    (Y one value a row of X): mul_rows_grad, or its parallel twin where _mul_rows_grad runs it, on the values as
    [rows, cols] and [rows]; "numpy" where every output it has is Out@GRAD (X and Y of its shape and dtype): their
    buffer. None otherwise (a Python launch)."""
    dout = one(op, "Out@GRAD")
    if dout is None:
        return None
    if meta.variant == "middle":
        return _middle_grad_launches(op, table, meta)
    if meta.variant == "numpy":
        alias = _aliases(op, meta, dout) if set(meta.aliases) == set(meta.outputs) else None
        return [alias] if alias else None
    if meta.variant == "mid":
        dx, dy = one(op, "X@GRAD", "outputs"), one(op, "Y@GRAD", "outputs")
        launches = [Launch(None, (), aliases={dx: dout})] if dx is not None else []
        if dy is not None:
            launches.append(bias_grad_launch(dout, meta.args[0], flat_arg(table, dy), dy))
        return launches
    x, y, d = one(op, "X"), one(op, "Y"), dout
    dx, dy = one(op, "X@GRAD", "outputs"), one(op, "Y@GRAD", "outputs")
    if meta.variant != "rows" or not floats(table, x, y, d, dx, dy):
        return None
    ((rows, cols),) = meta.args
    matrix, column = (rows, cols), (rows,)
    args = [("var", x, matrix), ("var", y, column), ("var", d, matrix), ("var", dx, matrix), ("var", dy, column)]
    loops = _reduce()
    parts = parallel_parts(rows * cols)
    return [parts_launch(loops.mul_rows_grad, loops.mul_rows_grad_parallel, parts, args, writes=[dx, dy])]


def _grad(op):
    variants = {"numpy": _grad_numpy(_LOCAL_GRADS[op])}
    if op == "add":
        variants["mid"] = _bias_grad
    if op == "mul":
        variants["rows"] = _mul_rows_grad
    if op in MIDDLE_CODES:
        variants["middle"] = _middle_grad(MIDDLE_CODES[op])
    return by_variant(f"elementwise_{op}_grad_out", _grad_launches if op in MIDDLE_CODES else None, **variants)


GRAD = {op: _grad(op) for op in meta_rules.GRAD_OPS}
GRAD_META = meta_rules.GRAD

# the ops' kernels, for the kernels that call them by name
elementwise_add_grad = adapter(GRAD_META["add"], GRAD["add"], "elementwise_add_grad")
elementwise_sub_grad = adapter(GRAD_META["sub"], GRAD["sub"], "elementwise_sub_grad")
elementwise_mul_grad = adapter(GRAD_META["mul"], GRAD["mul"], "elementwise_mul_grad")
elementwise_div_grad = adapter(GRAD_META["div"], GRAD["div"], "elementwise_div_grad")
elementwise_max_grad = adapter(GRAD_META["max"], GRAD["max"], "elementwise_max_grad")
elementwise_min_grad = adapter(GRAD_META["min"], GRAD["min"], "elementwise_min_grad")
elementwise_pow_grad = adapter(GRAD_META["pow"], GRAD["pow"], "elementwise_pow_grad")
