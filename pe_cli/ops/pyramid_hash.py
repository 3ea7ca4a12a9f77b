"""Fluid 1.8's contrib pyramid_hash op (search_pyramid_hash): embeddings of the id n-grams of each
sequence, read from one table at XXH32-hashed positions (kernels in kernels/<device>/pyramid_hash.py).

For each sequence of int32 ids X (LoD level 1, [N, 1]), every n-gram of 2..pyramid_layer consecutive
ids (shorter ones first, then by start) is hashed: its ids, as float32 values, are the bytes given to
XXH32. Its embedding is num_emb / rand_len windows of rand_len floats of W [space_len + rand_len, 1],
window k starting at XXH32(bytes, seed k * rand_len) % space_len. In training (is_training != 0) an
n-gram is dropped when glibc's rand_r (its state started from ``seed`` at every run) over RAND_MAX is
below drop_out_percent; DropPos [number of n-grams, 1] keeps 1 for a kept n-gram, 0 for a dropped one.
Out [rows, num_emb] holds one row per kept n-gram, and one row of zeros for a sequence that keeps none
(fewer than 2 ids, or all dropped); its LoD counts them. Out of training, Out is scaled by
drop_out_percent (as Fluid's kernel does). X_Temp_Out: the ids as float32. White/black-list Bloom
filters (use_filter with white_list_len or black_list_len > 0) are refused.

The gradient: W@GRAD (dense, W's shape) sums Out@GRAD's windows back onto the positions they were
read from; the optimizer applies it. Fluid's grad kernel instead updates W in place by its own ``lr``
attribute and gives no W gradient (docs/COMPAT.md)."""

from ..kernels.cpu import pyramid_hash as cpu_pyramid_hash
from ..shapes import pyramid_hash as rules
from .define import Attr, Structured, fmt_shape, grads_like, is_int, register


def _infer(ctx):
    x, w, a = ctx.shape("X"), ctx.shape("W"), ctx.attrs
    if ctx.dtype("X") != "int32" or len(x) != 2 or x[1] not in (1, -1):
        ctx.fail(f"X {ctx.dtype('X')} {fmt_shape(x)} must be int32 ids [N, 1]")
    if len(w) != 2 or w[1] != 1 or w[0] != a["space_len"] + a["rand_len"]:
        ctx.fail(f"W {fmt_shape(w)} must be [space_len + rand_len, 1] = [{a['space_len'] + a['rand_len']}, 1]")
    if a["space_len"] <= 0 or a["rand_len"] <= 0:  # (Fluid's kernel divides by both)
        ctx.fail(f"space_len={a['space_len']} and rand_len={a['rand_len']} must be > 0")
    if a["num_emb"] % a["rand_len"]:
        ctx.fail(f"num_emb {a['num_emb']} must be a multiple of rand_len {a['rand_len']}")
    if a["use_filter"] and (a["white_list_len"] > 0 or a["black_list_len"] > 0):
        ctx.fail(
            "use_filter with a white or black list is not supported: Fluid keeps them as Bloom filters "
            "in its C library's binary layout; set use_filter=False"
        )
    ctx.set_output("Out", [-1, a["num_emb"]], ctx.dtype("W"), lod_level=1)
    ctx.set_output("DropPos", [-1, 1], "int32")
    ctx.set_output("X_Temp_Out", list(x), "float32")


def _grad(g):
    g.op(
        "pyramid_hash_grad",
        {"X": g.input("X"), "W": g.input("W"), "DropPos": g.output("DropPos"), "Out@GRAD": g.out_grad("Out")},
        {"W@GRAD": g.in_grad("W")},
        g.attrs,
    )


_NONNEG = lambda v: is_int(v) and v >= 0  # noqa: E731
_ATTRS = {
    "num_emb": Attr(0, _NONNEG, "an int >= 0"),
    "space_len": Attr(0, _NONNEG, "an int >= 0"),
    "pyramid_layer": Attr(2, lambda v: is_int(v) and v >= 2, "an int >= 2"),
    "rand_len": Attr(0, _NONNEG, "an int >= 0"),
    "drop_out_percent": Attr(0.0, lambda v: 0 <= v <= 1, "in [0, 1]"),
    "is_training": Attr(0, _NONNEG, "an int >= 0"),
    "use_filter": Attr(True),
    "white_list_len": Attr(0, _NONNEG, "an int >= 0"),
    "black_list_len": Attr(0, _NONNEG, "an int >= 0"),
    "seed": Attr(0, _NONNEG, "an int >= 0"),
    "lr": Attr(0.0, lambda v: v >= 0, ">= 0"),
    "distribute_update_vars": Attr(""),
}

register(
    "pyramid_hash",
    kernel_module="pyramid_hash",
    structured=Structured(meta=rules.pyramid_hash_meta, cpu=cpu_pyramid_hash.PYRAMID_HASH),
    inputs=["X", "W", "WhiteList?", "BlackList?"],
    outputs=["Out", "DropPos", "X_Temp_Out"],
    attrs=_ATTRS,
    infer=_infer,
    grad=_grad,
    grad_reads=("X", "W", "DropPos"),
    lod="drop",
    needs_lod=True,
    doc="see the module's doc",
)
register(
    "pyramid_hash_grad",
    kernel_module="pyramid_hash",
    structured=Structured(meta=rules.pyramid_hash_grad_meta, cpu=cpu_pyramid_hash.PYRAMID_HASH_GRAD),
    inputs=["X", "W", "DropPos", "Out@GRAD"],
    outputs=["W@GRAD"],
    attrs=_ATTRS,
    needs_lod=True,
    lod="drop",
    infer=grads_like({"W@GRAD": "W"}),
)
