"""Paddle 2.x's signal framing (paddle.signal), under Paddle 2.6's op types: frame (X cut into windows of
frame_length every hop_length along its first (axis 0) or last (axis -1) dim: [..., L] -> [..., frame_length,
n_frames], [L, ...] -> [n_frames, frame_length, ...]) and overlap_add (frame's inverse as a sum: the frames laid
hop_length apart and added). Each one's gradient is the other of Out@GRAD."""

from ..kernels.cpu import framing as cpu
from ..shapes import framing as metas
from .define import Attr, Structured, fmt_shape, grad_of, grads_like, register
from .pointwise_math import QUANT

_AXIS = Attr(-1, choices=(0, -1))
_POS = Attr(1, lambda v: isinstance(v, int) and v > 0, "an int > 0")


def _infer_frame(ctx):
    x, a = ctx.shape("X"), ctx.attrs
    n = x[-1] if a["axis"] == -1 else x[0]
    if len(x) < 1 or (n >= 0 and n < a["frame_length"]):
        ctx.fail(f"X {fmt_shape(x)} is shorter than frame_length={a['frame_length']} along axis {a['axis']}")
    frames = 1 + (n - a["frame_length"]) // a["hop_length"] if n >= 0 else -1
    out = list(x[:-1]) + [a["frame_length"], frames] if a["axis"] == -1 else [frames, a["frame_length"]] + list(x[1:])
    ctx.set_output("Out", out, ctx.dtype("X"))


def _infer_overlap_add(ctx):
    x, a = ctx.shape("X"), ctx.attrs
    if len(x) < 2:
        ctx.fail(f"X {fmt_shape(x)} must hold frames: at least 2-D")
    length, frames = (x[-2], x[-1]) if a["axis"] == -1 else (x[1], x[0])
    n = (frames - 1) * a["hop_length"] + length if frames >= 0 and length >= 0 else -1
    ctx.set_output("Out", list(x[:-2]) + [n] if a["axis"] == -1 else [n] + list(x[2:]), ctx.dtype("X"))


def _op(name, infer, attrs, doc):
    attrs = {**attrs, "axis": _AXIS, **QUANT}

    register(
        name,
        kernel_module="framing",
        inputs=["X"],
        outputs=["Out"],
        attrs=attrs,
        infer=infer,
        grad=grad_of(f"{name}_grad", ("X",)),
        grad_reads=("X",),
        lod="drop",
        structured=Structured(meta=getattr(metas, f"{name}_meta"), cpu=getattr(cpu, f"{name}_out")),
        doc=doc,
    )
    register(
        f"{name}_grad",
        kernel_module="framing",
        inputs=["X", "Out@GRAD"],
        outputs=["X@GRAD"],
        attrs=attrs,
        infer=grads_like({"X@GRAD": "X"}),
        no_need_buffer=("X",),
        lod="drop",
        structured=Structured(meta=metas.framed_grad_meta, cpu=getattr(cpu, f"{name}_grad_out")),
    )


_op(
    "frame",
    _infer_frame,
    {"frame_length": _POS, "hop_length": _POS},
    "Out = X's windows of frame_length, hop_length apart, along axis (last: [..., frame_length, n_frames]; "
    "first: [n_frames, frame_length, ...]).",
)
_op(
    "overlap_add",
    _infer_overlap_add,
    {"hop_length": _POS},
    "Out = the frames of X (as frame writes them) laid hop_length apart and summed where they overlap.",
)
