"""hash (Fluid 1.8): num_hash XXH64 hashes of each row of int ids, modulo mod_by (kernels in
kernels/<device>/hashing.py)."""

from ..kernels.cpu import hashing as cpu_hashing
from ..shapes.hashing import hash_meta
from .define import Attr, Structured, backend_attrs, fmt_shape, is_int, register


def _infer(ctx):
    x = ctx.shape("X")
    if len(x) != 2:
        ctx.fail(f"X {fmt_shape(x)} must be [N, ids per row] (e.g. [N, 1])")
    ctx.set_output("Out", [x[0], ctx.attrs["num_hash"], 1], ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


register(
    "hash",
    kernel_module="hashing",
    structured=Structured(meta=hash_meta, cpu=cpu_hashing.HASH),
    inputs=["X"],
    outputs=["Out"],
    infer=_infer,
    run_dtypes={"X": ("int32", "int64")},
    attrs={
        "num_hash": Attr(1, lambda v: is_int(v) and v > 0, "an int > 0"),
        # Fluid's uint64 hash % int64 mod_by: a negative mod_by works as its uint64 (-1: the hash itself)
        "mod_by": Attr(100000, lambda v: is_int(v) and v != 0, "an int != 0", long=True),
        **backend_attrs("@ALL_KERNELS_MUST_COMPUTE_RUNTIME_SHAPE@"),
    },
    doc="Out[i, k, 0] = XXH64(the bytes of row i of X, seed k) % mod_by for k < num_hash, of X's dtype "
    "(as Fluid's op, which hashes the row's bytes in X's own int width, and takes the uint64 of a "
    "negative mod_by). No gradient.",
)
