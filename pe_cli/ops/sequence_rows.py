"""Sequence ops that move whole rows by a map computed from the LoD: sequence_reverse,
sequence_expand, sequence_pad / sequence_unpad; sequence_erase (drops the steps holding given
tokens; no gradient); and sequence_mask (lengths -> a 0/1 mask)."""

from ..kernels.cpu import sequence_rows as cpu_rows
from ..shapes import sequence_rows as metas
from ..shapes.structured import Structured
from .define import Attr, grad_of, grads_like, int_list, register
from .sequence import need_lod
from .sequence_metric import check_seq


def _infer_reverse(ctx):
    x = need_lod(ctx, "X", "sequence_reverse")
    ctx.set_output("Y", x.shape, x.dtype, lod_level=x.lod_level)


def _grad_reverse(g):
    """Fluid's: the gradient reversed back, by sequence_reverse itself (of Y@GRAD, which has X's LoD)."""
    g.op("sequence_reverse", {"X": g.out_grad("Y")}, {"Y": g.in_grad("X")})


register(
    "sequence_reverse",
    kernel_module="sequence_rows",
    structured=Structured(meta=metas.reverse_meta, cpu=cpu_rows.sequence_reverse),
    inputs=["X"],
    outputs=["Y"],
    infer=_infer_reverse,
    grad=_grad_reverse,
    needs_lod=True,
    run_lod={"X": None},
    doc="Each sequence's time steps in reverse order; Y keeps X's LoD.",
)
# (pe's earlier gradient op, in the programs it saved before)
register(
    "sequence_reverse_grad",
    kernel_module="sequence_rows",
    structured=Structured(meta=metas.reverse_grad_meta, cpu=cpu_rows.sequence_reverse_grad),
    inputs=["X", "Y@GRAD"],
    outputs=["X@GRAD"],
    infer=grads_like({"X@GRAD": "X"}),
    lod="drop",
    needs_lod=True,
)


def _infer_expand(ctx):
    need_lod(ctx, "Y", "sequence_expand")
    levels = ctx.input_var("Y").lod_level
    if levels and not -1 <= ctx.attrs["ref_level"] < levels:  # (Fluid checks the run-time LoD's levels)
        ctx.fail(f"ref_level={ctx.attrs['ref_level']} is not one of Y's {levels} LoD levels (-1: the last)")
    x = ctx.input_var("X")
    ctx.set_output("Out", [-1] + list(ctx.shape("X")[1:]), x.dtype, lod_level=min(x.lod_level, 1))


register(
    "sequence_expand",
    kernel_module="sequence_rows",
    structured=Structured(meta=metas.expand_meta, cpu=cpu_rows.sequence_expand),
    inputs=["X", "Y"],
    outputs=["Out"],
    attrs={"ref_level": -1},
    infer=_infer_expand,
    grad=grad_of("sequence_expand_grad", ("X", "Y")),
    grad_reads=("X", "Y"),
    lod="drop",
    needs_lod=True,
    run_lod={"Y": None},
    doc="X's sequence i (row i when X has no LoD) repeated as many times as Y's sequence i is long "
    "at Y's LoD level ref_level (-1: the last); Out has one sequence per repeat, or no LoD when X "
    "has none (as Fluid).",
)
register(
    "sequence_expand_grad",
    kernel_module="sequence_rows",
    structured=Structured(meta=metas.expand_grad_meta, cpu=cpu_rows.sequence_expand_grad),
    inputs=["X", "Y", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs={"ref_level": -1},
    infer=grads_like({"X@GRAD": "X"}),
    lod="drop",
    needs_lod=True,
)


def _infer_pad(ctx):
    x = need_lod(ctx, "X", "sequence_pad", at_build=True)
    n = ctx.attrs["padded_length"]
    ctx.set_output("Out", [-1, n] + list(ctx.shape("X")[1:]), x.dtype, lod_level=0)
    ctx.set_output("Length", [-1], "int64", lod_level=0)


_PAD_ATTRS = {"padded_length": Attr(-1, lambda v: v == -1 or v > 0, "-1 (the longest sequence) or > 0")}
register(
    "sequence_pad",
    kernel_module="sequence_rows",
    structured=Structured(meta=metas.pad_meta, cpu=cpu_rows.sequence_pad),
    inputs=["X", "PadValue"],
    outputs=["Out", "Length"],
    attrs=_PAD_ATTRS,
    infer=_infer_pad,
    grad=grad_of("sequence_pad_grad", ("X",)),
    grad_reads=("X",),
    lod="drop",
    needs_lod=True,
    doc="Sequences as a dense [num_sequences, padded_length, ...] batch, PadValue past each end; "
    "Length holds the lengths.",
)
register(
    "sequence_pad_grad",
    kernel_module="sequence_rows",
    structured=Structured(meta=metas.pad_grad_meta, cpu=cpu_rows.sequence_pad_grad),
    inputs=["X", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_PAD_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    lod="drop",
    needs_lod=True,
)


def _infer_unpad(ctx):
    shape = ctx.shape("X")
    if len(shape) < 2:
        ctx.fail(f"X {list(shape)} must be [num_sequences, padded_length, ...]")
    ctx.set_output("Out", [-1] + (list(shape[2:]) or [1]), ctx.dtype("X"), lod_level=1)  # Fluid: [N, 1] from 2-D X


register(
    "sequence_unpad",
    kernel_module="sequence_rows",
    structured=Structured(meta=metas.unpad_meta, cpu=cpu_rows.sequence_unpad),
    inputs=["X", "Length"],
    outputs=["Out"],
    infer=_infer_unpad,
    grad=grad_of("sequence_unpad_grad", ("X", "Length")),
    grad_reads=("X", "Length"),
    lod="drop",
    needs_lod=True,  # so Out gets its LoD from a plain X too
    doc="The first Length[i] steps of each padded sequence i, as a LoDTensor (the inverse of sequence_pad).",
)
register(
    "sequence_unpad_grad",
    kernel_module="sequence_rows",
    structured=Structured(meta=metas.unpad_grad_meta, cpu=cpu_rows.sequence_unpad_grad),
    inputs=["X", "Length", "Out@GRAD"],
    outputs=["X@GRAD"],
    infer=grads_like({"X@GRAD": "X"}),
    lod="drop",
)


def _infer_mask(ctx):
    x = ctx.input_var("X")
    maxlen = -1 if ctx.has_input("MaxLenTensor") else ctx.attrs["maxlen"]
    ctx.set_output("Y", list(x.shape or []) + [maxlen], ctx.attrs["out_dtype"], lod_level=0)


register(
    "sequence_mask",
    kernel_module="sequence_rows",
    structured=Structured(meta=metas.mask_meta, cpu=cpu_rows.sequence_mask),
    inputs=["X", "MaxLenTensor?"],
    outputs=["Y"],
    attrs={"maxlen": Attr(-1, lambda v: v == -1 or v > 0, "-1 (the largest length) or > 0"), "out_dtype": "int64"},
    infer=_infer_mask,
    lod="drop",
    doc="Y[..., j] = 1 where j < X[...] (lengths), else 0; maxlen -1 uses the largest length; the "
    "int MaxLenTensor [1], when given, is the length at run time.",
)


def _infer_erase(ctx):
    x = check_seq(ctx, "X", "(none)")
    ctx.set_output("Out", [-1] + list(x.shape[1:]), x.dtype, lod_level=x.lod_level)


register(
    "sequence_erase",
    kernel_module="sequence_rows",
    structured=Structured(meta=metas.erase_meta, cpu=cpu_rows.sequence_erase),
    inputs=["X"],
    outputs=["Out"],
    attrs={"tokens": Attr([], int_list, "a list of ints")},
    infer=_infer_erase,
    lod="drop",
    needs_lod=True,
    run_dtypes={"X": ("int64", "int32")},
    run_lod={"X": None},
    doc="X's sequences without the steps whose id is in tokens; Out's LoD counts what is left.",
)
