"""Embedding lookup: lookup_table, lookup_table_v2 (fluid.embedding) and lookup_table_grad, dense or
SelectedRows (kernels in kernels/<device>/embedding.py; on the CPU lookup_table, lookup_table_v2 and their
gradients are structured kernels: meta rules in shapes/embedding.py)."""

from ..base.dtypes import VarType
from ..kernels.cpu import embedding as cpu_embedding
from ..shapes import embedding as meta_rules
from ..shapes.embedding import lookup_out_shape
from .convolution import _known
from .define import Attr, Structured, backend_attrs, fmt_shape, is_int, register


# -- lookup_table -----------------------------------------------------------------------------------

_LOOKUP_ATTRS = {
    # the id whose rows are zeros (-1: none); as in Fluid's kernel, one that is no row of W changes nothing
    "padding_idx": Attr(-1, is_int, "an int: the id of the zero rows, -1 for none", long=True),
    "is_sparse": False,
    "is_distributed": False,
    "grad_inplace": False,
    # a table split over parameter servers (Fluid's distributed lookup): pe's table is local, and these
    # change nothing, as in Fluid's kernel when remote_prefetch is off
    **backend_attrs("remote_prefetch", "trainer_id", "height_sections", "epmap", "table_names"),
}


def _infer_lookup(ctx, out_shape=lookup_out_shape):
    w, ids = ctx.shape("W"), ctx.shape("Ids")
    if w is None or len(w) != 2:
        ctx.fail(f"W {fmt_shape(w)} must be 2-D [vocab_size, emb_dim] for Ids {fmt_shape(ids)}")
    ctx.set_output("Out", out_shape(ids, w[1]), ctx.dtype("W"), lod_level=ctx.input_var("Ids").lod_level)


def _grad_lookup(g):
    g.op(
        f"{g.fwd.type}_grad",
        {"W": g.input("W"), "Ids": g.input("Ids"), "Out@GRAD": g.out_grad("Out")},
        {"W@GRAD": g.in_grad("W")},
        g.attrs,
    )


register(
    "lookup_table",
    kernel_module="embedding",
    grad_reads=("Ids", "W"),
    run_dtypes={"Ids": ("int64", "int32")},
    inputs=["W", "Ids"],
    outputs=["Out"],
    attrs=_LOOKUP_ATTRS,
    infer=_infer_lookup,
    grad=_grad_lookup,
    structured=Structured(meta=meta_rules.lookup_meta, cpu=cpu_embedding.LOOKUP),
    doc="Out = rows of W picked by Ids (int64); rows of padding_idx are zeros and get no gradient. "
    "The gradient of W is dense, or with is_sparse a SelectedRows: the ids looked up (duplicates "
    "kept, padding_idx left out) and the rows of Out@GRAD.",
)
register(
    "lookup_table_v2",
    kernel_module="embedding",
    grad_reads=("Ids", "W"),
    run_dtypes={"Ids": ("int64", "int32")},
    inputs=["W", "Ids"],
    outputs=["Out"],
    attrs=_LOOKUP_ATTRS,
    infer=lambda ctx: _infer_lookup(ctx, lambda ids, width: list(ids) + [width]),
    grad=_grad_lookup,
    structured=Structured(meta=meta_rules.lookup_v2_meta, cpu=cpu_embedding.LOOKUP),
    doc="Fluid 1.8's lookup_table_v2 (fluid.embedding): lookup_table whose Out is Ids' shape plus the "
    "embedding dim (a trailing 1 of Ids is kept); the same gradient.",
)


def _infer_lookup_grad(ctx):
    w = ctx.input_var("W")
    ctx.set_output(
        "W@GRAD", w.shape, w.dtype, var_type=VarType.SELECTED_ROWS if ctx.attrs["is_sparse"] else VarType.LOD_TENSOR
    )


for _type in ("lookup_table_grad", "lookup_table_v2_grad"):
    register(
        _type,
        kernel_module="embedding",
        kernel="lookup_table_grad",
        inputs=["W", "Ids", "Out@GRAD"],
        outputs=["W@GRAD"],
        attrs=_LOOKUP_ATTRS,
        infer=_infer_lookup_grad,
        structured=Structured(meta=meta_rules.lookup_grad_meta, cpu=cpu_embedding.LOOKUP_GRAD),
    )


def _infer_dequant(ctx):
    w, ids = ctx.shape("W"), ctx.shape("Ids")
    if len(w) != 2 or (_known(w[1]) and w[1] < 2):
        ctx.fail(f"W {fmt_shape(w)} must be [rows, 2 + packed], each row min, max and the packed uint8 codes")
    if not ids or ids[-1] != 1:
        ctx.fail(f"Ids {fmt_shape(ids)} must end in a dim of 1")
    ctx.set_output(
        "Out",
        list(ids[:-1]) + [(w[1] - 2) * 4 if _known(w[1]) else -1],
        "float32",
        lod_level=ctx.input_var("Ids").lod_level,
    )


register(
    "lookup_table_dequant",
    kernel_module="embedding",
    structured=Structured(meta=meta_rules.lookup_dequant_meta, cpu=cpu_embedding.LOOKUP_DEQUANT),
    inputs=["W", "Ids"],
    outputs=["Out"],
    attrs={"padding_idx": Attr(-1, long=True)},
    infer=_infer_dequant,
    doc="An embedding whose rows are quantized to 8 bits: row r of W [rows, 2 + K] (float32) holds min, max "
    "and 4 * K uint8 codes c in its other K floats' bytes; Out = [Ids' dims but the last, 4 * K] with "
    "row r decoded as (max - min) / 256 * c + min, zeros for padding_idx.",
)
