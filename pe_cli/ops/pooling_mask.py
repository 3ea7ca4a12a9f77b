"""Max pooling that says where each maximum came from, and unpooling by those places (Paddle 2.x's
max_pool1d/2d/3d(return_mask=True), adaptive_max_pool*(return_mask=True) and max_unpool1d/2d/3d;
kernels in kernels/<device>/pooling_mask.py).

- max_pool2d_with_index / max_pool3d_with_index: X [N, C, H, W] / [N, C, D, H, W] -> Out and Mask
  (int32, of Out's shape): each window's maximum and its flat position in its [H, W] / [D, H, W]
  plane, the first maximum in row-major order. Windows start at o * stride - padding, clipped to X
  (Out's size (in + 2 * padding - ksize) // stride + 1; Paddle's kernel takes no ceil_mode), or are
  adaptive ones (adaptive=True: ksize is Out's size, window i from floor(i * n / k) to
  ceil((i + 1) * n / k)). The gradient goes to the masked positions (adding where windows share one).
- unpool / unpool3d: Out = zeros [N, C] + output_size with each X value written at its Indices
  position of its plane (the mask); the gradient reads Out@GRAD back at those positions."""

from ..shapes.conv_pool import mask_pool_out as pool_out, unpool_out
from .convolution import PADDING_ALGORITHM
from ..kernels.cpu import pooling_mask as cpu_mask
from ..shapes import pooling_mask as meta_rules
from .define import Attr, Structured, fmt_shape, grads_like, int_list, register


def _ints(n, lo):
    return Attr([lo] * n, lambda v: int_list(v) and len(v) == n and all(i >= lo for i in v), f"{n} ints >= {lo}")


def _any_ints(n):
    return Attr([1] * n, lambda v: int_list(v) and len(v) == n, f"{n} ints")


def _pool_attrs(n):
    # (strides >= 1 but with global_pooling, which ignores them: _infer_pool; any ksize and paddings, whose
    # windows Fluid's loop clips to X: an empty one is -FLT_MAX with Mask -1)
    return {
        "ksize": _any_ints(n),
        "strides": _any_ints(n),
        "paddings": Attr([0] * n, lambda v: int_list(v) and len(v) == n, f"{n} ints"),
        "global_pooling": False,
        "adaptive": Attr(False, choices=(False, True)),
        "pooling_type": Attr("max", choices=("max",)),
        "ceil_mode": False,
        "exclusive": True,
        "padding_algorithm": PADDING_ALGORITHM,
        "use_cudnn": True,
        "use_mkldnn": False,
        "data_format": Attr("NCHW", choices=("NCHW",)) if n == 2 else Attr("NCDHW", choices=("NCDHW",)),
    }


def _infer_pool(n):
    def infer(ctx):
        x, a = ctx.shape("X"), ctx.attrs
        if x is None or len(x) != n + 2:
            ctx.fail(f"X {fmt_shape(x)} must be {n + 2}-D ({'NCHW' if n == 2 else 'NCDHW'})")
        if not a["global_pooling"] and min(a["strides"]) < 1:
            ctx.fail(f"strides {list(a['strides'])} must be >= 1 (but with global_pooling)")
        out = pool_out(x[2:], a)
        if any(o <= 0 and d >= 0 for o, d in zip(out, x[2:])):  # Fluid's would hold no data
            ctx.fail(
                f"ksize {list(a['ksize'])} with strides {list(a['strides'])} and paddings "
                f"{list(a['paddings'])} leaves no output of X {fmt_shape(x)} (output {out})"
            )
        ctx.set_output("Out", list(x[:2]) + out, ctx.dtype("X"))
        ctx.set_output("Mask", list(x[:2]) + out, "int32")

    return infer


def _grad_pool(op_type):
    def grad(g):
        g.op(
            op_type + "_grad",
            {"X": g.input("X"), "Mask": g.output("Mask"), "Out@GRAD": g.out_grad("Out")},
            {"X@GRAD": g.in_grad("X")},
            g.attrs,
        )

    return grad


for _n, _type in ((2, "max_pool2d_with_index"), (3, "max_pool3d_with_index")):
    register(
        _type,
        kernel_module="pooling_mask",
        inputs=["X"],
        outputs=["Out", "Mask"],
        attrs=_pool_attrs(_n),
        infer=_infer_pool(_n),
        grad=_grad_pool(_type),
        grad_reads=("X", "Mask"),
        structured=Structured(meta=meta_rules.mask_pool_meta, cpu=cpu_mask.mask_pool_out),
        doc=f"Max pooling of {_n + 2}-D NC... X over windows (o * stride - padding, clipped to X; adaptive: "
        f"floor(i * n / k) to ceil((i + 1) * n / k)); Mask (int32) = the flat position of each window's "
        f"first maximum (row-major) in its plane of X. An empty window (any ksize and paddings run, as "
        f"in Fluid's loop) gives -FLT_MAX and Mask -1, and no gradient.",
    )
    register(
        _type + "_grad",
        kernel_module="pooling_mask",
        inputs=["X", "Mask", "Out@GRAD"],
        outputs=["X@GRAD"],
        attrs=_pool_attrs(_n),
        infer=grads_like({"X@GRAD": "X"}),
        structured=Structured(meta=meta_rules.mask_pool_grad_meta, cpu=cpu_mask.mask_pool_grad_out),
    )


def _unpool_attrs(n):
    return {
        "unpooling_type": Attr("max", choices=("max",)),
        "ksize": _ints(n, 1),
        "strides": _ints(n, 1),
        "paddings": _ints(n, 0),
        "output_size": Attr([], lambda v: int_list(v) and len(v) in (0, n), f"[] or {n} ints"),
        "data_format": Attr("NCHW" if n == 2 else "NCDHW", choices=(("NCHW",) if n == 2 else ("NCDHW",))),
    }


def _infer_unpool(n):
    def infer(ctx):
        x, idx = ctx.shape("X"), ctx.shape("Indices")
        if x is None or len(x) != n + 2 or list(idx or []) != list(x):
            ctx.fail(f"X {fmt_shape(x)} must be {n + 2}-D and Indices {fmt_shape(idx)} of its shape")
        if ctx.dtype("Indices") not in ("int32", "int64"):
            ctx.fail(f"Indices is {ctx.dtype('Indices')}; it holds int positions (a max pool's mask)")
        out = [-1] * n if ctx.has_input("OutputSizeTensorList") else unpool_out(x[2:], ctx.attrs)  # (Paddle's)
        if any(o == 0 or o < -1 for o in out):
            ctx.fail(f"the output size {out} of X {fmt_shape(x)} must be positive")
        ctx.set_output("Out", list(x[:2]) + out, ctx.dtype("X"))

    return infer


def _grad_unpool(op_type):
    def grad(g):
        g.op(
            op_type + "_grad",
            {"X": g.input("X"), "Indices": g.input("Indices"), "Out@GRAD": g.out_grad("Out")},
            {"X@GRAD": g.in_grad("X")},
            g.attrs,
        )

    return grad


for _n, _type in ((2, "unpool"), (3, "unpool3d")):
    register(
        _type,
        kernel_module="pooling_mask",
        inputs=["X", "Indices"] + (["OutputSizeTensorList*?"] if _n == 2 else []),
        outputs=["Out"],
        attrs=_unpool_attrs(_n),
        infer=_infer_unpool(_n),
        attr_tensors={"OutputSizeTensorList": "output_size"} if _n == 2 else None,
        grad=_grad_unpool(_type),
        grad_reads=("X", "Indices"),
        doc=f"Max unpooling of {_n + 2}-D X: Out = zeros [N, C] + output_size (default (in - 1) * stride - "
        f"2 * padding + ksize) with X written at its Indices position (flat, within its plane); an index "
        f"outside the plane is an error."
        + (
            " OutputSizeTensorList (one int [1] tensor a dim) gives output_size when the op runs (Paddle 2.x's "
            "output_size holding Variables, a VARS attribute; unpool3d's takes none)."
            if _n == 2
            else ""
        ),
        structured=Structured(meta=meta_rules.unpool_meta, cpu=getattr(cpu_mask, _type.upper())),
    )
    register(
        _type + "_grad",
        kernel_module="pooling_mask",
        inputs=["X", "Indices", "Out@GRAD"],
        outputs=["X@GRAD"],
        attrs=_unpool_attrs(_n),
        infer=grads_like({"X@GRAD": "X"}),
        structured=Structured(meta=meta_rules.unpool_grad_meta, cpu=getattr(cpu_mask, _type.upper() + "_GRAD")),
    )
