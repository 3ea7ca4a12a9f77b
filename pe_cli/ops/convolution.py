"""Neural-network ops: convolution, pooling, normalization, dropout and embedding lookup (NCHW; conv2d
and pool2d also NHWC, their NCHW kernels run between transposes: ``channels_last``, kernels/layout.py).

Their geometry (paddings, output sizes, the conv input checks) is in ``pe_cli.shapes``, shared with
the kernels so that build time and run time always agree on output sizes.
"""
from ..dtypes import VarType
from ..shapes import (bn_channel_axis, conv_geometry, conv_mismatch, known_numel, lookup_out_shape, pool_geometry,
                      pool_out_size)
from ..kernels.cpu._onednn import MIN_CHANNELS
from .registry import Attr, fmt_shape, grads_like, register


# -- attribute checks ------------------------------------------------------------------------------

def _ints(n, lo, allowed=None):
    """check: a list of ``n`` (or any of ``allowed`` counts) ints, each >= lo."""
    counts = allowed or (n,)

    def check(v):
        return isinstance(v, (list, tuple)) and len(v) in counts and all(
            isinstance(x, int) and not isinstance(x, bool) and x >= lo for x in v)
    return check


def _expect(what, counts, lo):
    n = " or ".join(str(c) for c in counts)
    return f"a list of {n} ints, each >= {lo} ({what})"


# -- conv2d -----------------------------------------------------------------------------------------

_CONV_ATTRS = {
    "strides": Attr([1, 1], _ints(2, 1), _expect("strides", (2,), 1)),
    "paddings": Attr([0, 0], _ints(2, 0, (2, 4)), _expect("[pad_h, pad_w] or [top, bottom, left, right]", (2, 4), 0)),
    "dilations": Attr([1, 1], _ints(2, 1), _expect("dilations", (2,), 1)),
    "groups": Attr(1, lambda v: isinstance(v, int) and v >= 1, "an int >= 1"),
    "padding_algorithm": Attr("EXPLICIT", choices=("EXPLICIT", "SAME", "VALID")),
    "data_format": Attr("NCHW", choices=("NCHW", "NHWC", "AnyLayout")),
    "fuse_relu_before_depthwise_conv": False,   # convolve relu(Input) (kernels/fused_math.py relu_first)
    "workspace_size_MB": 512,
    "exhaustive_search": False,
}


def _known(d):
    return d is not None and d >= 0


def _as_nchw(shape, a):
    """A 4-D NHWC shape as the NCHW one its kernels see; any other as it is."""
    nhwc = a["data_format"] == "NHWC" and shape is not None and len(shape) == 4
    return [shape[0], shape[3], shape[1], shape[2]] if nhwc else shape


def _to_layout(shape, a):
    """An NCHW output shape in the op's data_format."""
    return [shape[0], shape[2], shape[3], shape[1]] if a["data_format"] == "NHWC" else shape


def _infer_conv2d(ctx):
    a = ctx.attrs
    x, w = _as_nchw(ctx.shape("Input"), a), ctx.shape("Filter")
    if x is None or len(x) != 4:
        ctx.fail(f"Input {fmt_shape(x)} must be 4-D {a['data_format']} to convolve with Filter {fmt_shape(w)}")
    if w is None or len(w) != 4:
        ctx.fail(f"Filter {fmt_shape(w)} must be 4-D [num_filters, C/groups, kh, kw] for Input {fmt_shape(x)}")
    if ctx.dtype("Input") != ctx.dtype("Filter"):
        ctx.fail(f"Input is {ctx.dtype('Input')} but Filter is {ctx.dtype('Filter')}")
    pads, dil, out_hw = conv_geometry(x, w, a)
    error = conv_mismatch(x, w, a["groups"], pads, dil, out_hw)
    if error:
        ctx.fail(error)
    ctx.set_output("Output", _to_layout([x[0], w[0]] + out_hw, a), ctx.dtype("Input"))


def _conv_blocked(op):
    """conv2d's slots that may hold blocked values, each alone (its oneDNN kernel converts any other
    layout): NCHW, one group. Of a convolution on an input too narrow for oneDNN's input gradient
    (_onednn.MIN_CHANNELS: a network's first layer, on 1 or 3 channels), the output side only: its
    forward pass and filter gradient run on oneDNN then (kernels/cpu/blocked.py)."""
    x = op.block.var(op.input("Input")[0]).shape if op.input("Input") else None
    if op.attrs["data_format"] != "NCHW" or op.attrs["groups"] != 1 or op.attrs["fuse_relu_before_depthwise_conv"] \
            or not x or len(x) != 4 or x[1] is None:
        return ()
    sides = ("Output", "Output@GRAD") if x[1] < MIN_CHANNELS else ("Input", "Output", "Output@GRAD", "Input@GRAD")
    return tuple((slot,) for slot in sides)


def _grad_conv2d(g, type_):
    ins = {"Input": g.input("Input"), "Filter": g.input("Filter"), "Output@GRAD": g.out_grad("Output")}
    if type_ == "conv2d" and g.needs("Input") and g.needs("Filter"):
        # both in one op, as Fluid's conv2d_grad: oneDNN then converts Output@GRAD to its layout once
        g.op("conv2d_grad", ins, {"Input@GRAD": g.in_grad("Input"), "Filter@GRAD": g.in_grad("Filter")}, g.attrs)
        return
    if g.needs("Input"):
        g.op(f"{type_}_grad_input", ins, {"Input@GRAD": g.in_grad("Input")}, g.attrs)
    if g.needs("Filter"):
        g.op(f"{type_}_grad_filter", ins, {"Filter@GRAD": g.in_grad("Filter")}, g.attrs)


for _type in ("conv2d", "depthwise_conv2d"):
    register(_type, inputs=["Input", "Filter"], outputs=["Output"], attrs=_CONV_ATTRS, infer=_infer_conv2d,
             grad=lambda g, t=_type: _grad_conv2d(g, t), grad_reads=("Filter", "Input"), kernel_module="nn",
             kernel="conv2d", channels_last=("Input", "Output"), blocked=_conv_blocked if _type == "conv2d" else None,
             doc="Output[n, m] = sum over the channels of group(m) of Input[n, c] correlated with "
                 "Filter[m, c] (strides, paddings, dilations); NCHW or NHWC, Filter [M, C/groups, kh, kw] in "
                 "both. Kernels: oneDNN (float32, the onednn extra), else Winograd, wide or im2col columns "
                 "and GEMMs.")
    # depthwise_conv2d is served by conv2d's kernels (groups == channels is a case they handle)
    register(f"{_type}_grad_input", inputs=["Input", "Filter", "Output@GRAD"], outputs=["Input@GRAD"],
             attrs=_CONV_ATTRS, infer=grads_like({"Input@GRAD": "Input"}), kernel_module="nn",
             kernel="conv2d_grad_input", channels_last=("Input", "Output@GRAD", "Input@GRAD"),
             blocked=_conv_blocked if _type == "conv2d" else None)
    register(f"{_type}_grad_filter", inputs=["Input", "Filter", "Output@GRAD"], outputs=["Filter@GRAD"],
             attrs=_CONV_ATTRS, infer=grads_like({"Filter@GRAD": "Filter"}), kernel_module="nn",
             kernel="conv2d_grad_filter", channels_last=("Input", "Output@GRAD"),
             blocked=_conv_blocked if _type == "conv2d" else None)


register("conv2d_grad", inputs=["Input", "Filter", "Output@GRAD"], outputs=["Input@GRAD", "Filter@GRAD"],
         attrs=_CONV_ATTRS, infer=grads_like({"Input@GRAD": "Input", "Filter@GRAD": "Filter"}), kernel_module="nn",
         kernel="conv2d_grad", channels_last=("Input", "Output@GRAD", "Input@GRAD"), blocked=_conv_blocked)


# -- pool2d -----------------------------------------------------------------------------------------

_POOL_ATTRS = {
    "pooling_type": Attr("max", choices=("max", "avg")),
    "ksize": Attr([1, 1], _ints(2, 1), _expect("ksize", (2,), 1)),
    "global_pooling": False,
    "strides": Attr([1, 1], _ints(2, 1), _expect("strides", (2,), 1)),
    "paddings": Attr([0, 0], _ints(2, 0, (2, 4)), _expect("[pad_h, pad_w] or [top, bottom, left, right]", (2, 4), 0)),
    "exclusive": True,
    "adaptive": Attr(False, choices=(False, True)),
    "ceil_mode": False,
    "padding_algorithm": Attr("EXPLICIT", choices=("EXPLICIT", "SAME", "VALID")),
    "data_format": Attr("NCHW", choices=("NCHW", "NHWC", "AnyLayout")),
}


def _infer_pool2d(ctx):
    a = ctx.attrs
    x = _as_nchw(ctx.shape("X"), a)
    if x is None or len(x) != 4:
        ctx.fail(f"X {fmt_shape(x)} must be 4-D {a['data_format']} for pool2d")
    if a["adaptive"]:        # ksize is the output's size; windows cover X (adaptive_pool2d)
        if a["global_pooling"]:
            ctx.fail("adaptive pooling takes no global_pooling")
        ctx.set_output("Out", _to_layout(list(x[:2]) + list(a["ksize"]), a), ctx.dtype("X"))
        return
    ksize, strides, pads = pool_geometry(a, x[2:])
    out_hw = [pool_out_size(x[2 + i], ksize[i], pads[2 * i], pads[2 * i + 1], strides[i], a["ceil_mode"])
              for i in range(2)]
    if not a["global_pooling"]:
        for i in range(2):
            if _known(x[2 + i]) and (out_hw[i] <= 0 or pads[2 * i] >= ksize[i] or pads[2 * i + 1] >= ksize[i]):
                ctx.fail(f"ksize {ksize} with paddings {pads} does not fit X {fmt_shape(x)} "
                         f"(output {out_hw[0]}x{out_hw[1]}; each padding must be < ksize)")
    ctx.set_output("Out", _to_layout(list(x[:2]) + out_hw, a), ctx.dtype("X"))


def _grad_pool2d(g):
    g.op("pool2d_grad", {"X": g.input("X"), "Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")},
         {"X@GRAD": g.in_grad("X")}, g.attrs)


def _pool_blocked(op):
    """X and its gradient, together, of a global average pooling (a ResNet's last layer) may be blocked."""
    a = op.attrs
    if not (a["global_pooling"] and a["pooling_type"] == "avg" and not a["adaptive"] and a["data_format"] == "NCHW"):
        return ()
    return (("X", "X@GRAD"),)


register("pool2d", kernel_module="nn", grad_reads=("Out", "X"), blocked=_pool_blocked,
         inputs=["X"], outputs=["Out"], attrs=_POOL_ATTRS, infer=_infer_pool2d, grad=_grad_pool2d,
         channels_last=("X", "Out"),
         doc="Max or average pooling (NCHW or NHWC) over ksize windows (strides, paddings, ceil_mode, global_pooling); "
             "avg with exclusive=True divides by the number of non-padding elements. adaptive: Out is ksize "
             "big, window i spanning floor(i * H / ksize) to ceil((i + 1) * H / ksize).")
register("pool2d_grad", kernel_module="nn", inputs=["X", "Out", "Out@GRAD"], outputs=["X@GRAD"], attrs=_POOL_ATTRS,
         blocked=_pool_blocked,
         infer=grads_like({"X@GRAD": "X"}), channels_last=("X", "Out", "Out@GRAD", "X@GRAD"))


# -- batch_norm -------------------------------------------------------------------------------------

_BN_ATTRS = {
    "momentum": Attr(0.9, lambda v: 0.0 <= v <= 1.0, "in [0, 1]"),
    "epsilon": Attr(1e-5, lambda v: 0.0 <= v <= 1e-3, "in [0, 0.001]"),
    "is_test": False,
    "data_layout": Attr("NCHW", choices=("NCHW", "NHWC", "AnyLayout")),
    "use_global_stats": False,
    "fuse_with_relu": False,
    "trainable_statistics": False,
}


def _infer_batch_norm(ctx):
    x = ctx.shape("X")
    if x is None or not 2 <= len(x) <= 5:
        ctx.fail(f"X {fmt_shape(x)} must have 2 to 5 dims ([N, C] or [N, C, H, W])")
    c = x[bn_channel_axis(len(x), ctx.attrs["data_layout"])]
    for slot in ("Scale", "Bias", "Mean", "Variance"):
        s = ctx.shape(slot)
        if len(s) != 1 or (_known(c) and _known(s[0]) and s[0] != c):
            ctx.fail(f"{slot} {fmt_shape(s)} must be [{c}], the channels of X {fmt_shape(x)} "
                     f"(data_layout {ctx.attrs['data_layout']})")
    dtype = ctx.dtype("X")
    ctx.set_output("Y", x, dtype, lod_level=ctx.input_var("X").lod_level)
    for slot in ("MeanOut", "VarianceOut", "SavedMean", "SavedVariance"):
        ctx.set_output(slot, [c], ctx.dtype("Mean") if slot.endswith("Out") else dtype)


def _grad_batch_norm(g):
    ins = {"X": g.input("X"), "Scale": g.input("Scale"), "SavedMean": g.output("SavedMean"),
           "SavedVariance": g.output("SavedVariance"), "Y@GRAD": g.out_grad("Y")}
    outs = {"Scale@GRAD": g.in_grad("Scale"), "Bias@GRAD": g.in_grad("Bias")}
    if g.needs("X"):
        g.op("batch_norm_grad", ins, {"X@GRAD": g.in_grad("X"), **outs}, g.attrs)
    else:
        g.op("batch_norm_grad_param", ins, outs, g.attrs)


def bn_blocked(op):
    """batch_norm's image slots, held blocked together in training on NCHW values (kernels/cpu/blocked.py
    runs _blocked_loops.py)."""
    a = op.attrs
    if a["is_test"] or a["use_global_stats"] or a["data_layout"] != "NCHW":
        return ()
    return (("X", "Y", "Y@GRAD", "X@GRAD"),)


register("batch_norm", kernel_module="nn", blocked=bn_blocked,
         grad_reads=("SavedMean", "SavedVariance", "Scale", "X"), inputs=["X", "Scale", "Bias", "Mean", "Variance"],
         outputs=["Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance"], attrs=_BN_ATTRS,
         infer=_infer_batch_norm, grad=_grad_batch_norm, traits=("batch_statistics",),
         doc="Y = (X - mean) / sqrt(var + epsilon) * Scale + Bias per channel. Training uses the batch "
             "statistics and updates MeanOut/VarianceOut (the Mean/Variance variables) with momentum; "
             "is_test or use_global_stats uses the moving ones. SavedVariance holds 1/sqrt(var + eps).")
_BN_GRAD_INS = ["X", "Scale", "SavedMean", "SavedVariance", "Y@GRAD"]
register("batch_norm_grad", kernel_module="nn", blocked=bn_blocked, inputs=_BN_GRAD_INS, outputs=["X@GRAD", "Scale@GRAD?", "Bias@GRAD?"],
         attrs=_BN_ATTRS, infer=grads_like({"X@GRAD": "X", "Scale@GRAD": "Scale", "Bias@GRAD": "Scale"}))
register("batch_norm_grad_param", kernel_module="nn", inputs=_BN_GRAD_INS, outputs=["Scale@GRAD?", "Bias@GRAD?"],
         attrs=_BN_ATTRS, infer=grads_like({"Scale@GRAD": "Scale", "Bias@GRAD": "Scale"}))


# -- layer_norm -------------------------------------------------------------------------------------

_LN_ATTRS = {
    "begin_norm_axis": Attr(1, lambda v: isinstance(v, int) and v >= 1, "an int >= 1"),
    "epsilon": Attr(1e-5, lambda v: 0.0 <= v <= 1e-3, "in [0, 0.001]"),
}


def _infer_layer_norm(ctx):
    x = ctx.shape("X")
    b = ctx.attrs["begin_norm_axis"]
    if x is None or not 1 <= b < len(x):
        ctx.fail(f"begin_norm_axis={b} must be in [1, {len(x or ()) - 1}] for X {fmt_shape(x)}")
    left, right = known_numel(x[:b]), known_numel(x[b:])
    for slot in ("Scale", "Bias"):
        if ctx.has_input(slot):
            s = ctx.shape(slot)
            if len(s) != 1 or (right >= 0 and _known(s[0]) and s[0] != right):
                ctx.fail(f"{slot} {fmt_shape(s)} must be [{right}], the size of X {fmt_shape(x)} "
                         f"from begin_norm_axis={b}")
    dtype = ctx.dtype("X")
    ctx.set_output("Y", x, dtype, lod_level=ctx.input_var("X").lod_level)
    ctx.set_output("Mean", [left], dtype)
    ctx.set_output("Variance", [left], dtype)


def _grad_layer_norm(g):
    ins = {"X": g.input("X"), "Mean": g.output("Mean"), "Variance": g.output("Variance"),
           "Y@GRAD": g.out_grad("Y")}
    if g.input("Scale"):
        ins["Scale"] = g.input("Scale")
    g.op("layer_norm_grad", ins, {"X@GRAD": g.in_grad("X"), "Scale@GRAD": g.in_grad("Scale"),
                                  "Bias@GRAD": g.in_grad("Bias")}, g.attrs)


register("layer_norm", kernel_module="nn", grad_reads=("Mean", "Scale", "Variance", "X"),
         inputs=["X", "Scale?", "Bias?"], outputs=["Y", "Mean", "Variance"], attrs=_LN_ATTRS,
         infer=_infer_layer_norm, grad=_grad_layer_norm,
         doc="Normalizes X over the dims from begin_norm_axis on: Y = (X - mean) / sqrt(var + epsilon) "
             "* Scale + Bias (Scale and Bias flattened, optional).")


def _infer_layer_norm_grad(ctx):
    x = ctx.input_var("X")
    ctx.set_output("X@GRAD", x.shape, x.dtype)
    right = known_numel(x.shape[ctx.attrs["begin_norm_axis"]:])
    ctx.set_output("Scale@GRAD", [right], x.dtype)
    ctx.set_output("Bias@GRAD", [right], x.dtype)


register("layer_norm_grad", kernel_module="nn", inputs=["X", "Scale?", "Mean", "Variance", "Y@GRAD"],
         outputs=["X@GRAD?", "Scale@GRAD?", "Bias@GRAD?"], attrs=_LN_ATTRS, infer=_infer_layer_norm_grad)


# -- dropout ----------------------------------------------------------------------------------------

_DROPOUT_ATTRS = {
    "dropout_prob": Attr(0.5, lambda v: 0.0 <= v <= 1.0, "in [0, 1]"),
    "is_test": False,
    "fix_seed": False,
    "seed": Attr(0, lambda v: isinstance(v, int) and v >= 0, "an int >= 0"),
    "dropout_implementation": Attr("downgrade_in_infer", choices=("downgrade_in_infer", "upscale_in_train")),
}


def _infer_dropout(ctx):
    x = ctx.shape("X")
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)
    ctx.set_output("Mask", x, "uint8")


def _grad_dropout(g):
    a = g.attrs
    if a["is_test"]:
        # Inference: Out = X * (1 - p) or X; no mask was drawn.
        factor = 1.0 - a["dropout_prob"] if a["dropout_implementation"] == "downgrade_in_infer" else 1.0
        g.op("scale", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")},
             {"scale": factor, "bias": 0.0, "bias_after_scale": True})
        return
    g.op("dropout_grad", {"Mask": g.output("Mask"), "Out@GRAD": g.out_grad("Out")},
         {"X@GRAD": g.in_grad("X")}, a)


register("dropout", kernel_module="nn", grad_reads=("Mask",),
         inputs=["X"], outputs=["Out", "Mask"], attrs=_DROPOUT_ATTRS, infer=_infer_dropout,
         grad=_grad_dropout, needs_rng=True,
         doc="Training: Mask ~ Bernoulli(1 - dropout_prob) (uint8), Out = X * Mask, divided by "
             "(1 - dropout_prob) for upscale_in_train. Test: Out = X * (1 - dropout_prob) for "
             "downgrade_in_infer, X for upscale_in_train. fix_seed draws the same mask every run.")
register("dropout_grad", kernel_module="nn", inputs=["Mask", "Out@GRAD"], outputs=["X@GRAD"], attrs=_DROPOUT_ATTRS,
         infer=grads_like({"X@GRAD": "Out@GRAD"}))


# -- lookup_table -----------------------------------------------------------------------------------

_LOOKUP_ATTRS = {
    "padding_idx": Attr(-1, lambda v: isinstance(v, int) and v >= -1, "-1 (none) or a row index >= 0"),
    "is_sparse": False,
    "is_distributed": False,
    "remote_prefetch": False,
}


def _infer_lookup(ctx, out_shape=lookup_out_shape):
    w, ids = ctx.shape("W"), ctx.shape("Ids")
    if w is None or len(w) != 2:
        ctx.fail(f"W {fmt_shape(w)} must be 2-D [vocab_size, emb_dim] for Ids {fmt_shape(ids)}")
    if ctx.dtype("Ids") not in ("int64", "int32"):
        ctx.fail(f"Ids {fmt_shape(ids)} must be int64 ids (got {ctx.dtype('Ids')}) to look up W {fmt_shape(w)}")
    pad = ctx.attrs["padding_idx"]
    if pad >= 0 and _known(w[0]) and pad >= w[0]:
        ctx.fail(f"padding_idx={pad} is outside W {fmt_shape(w)}")
    ctx.set_output("Out", out_shape(ids, w[1]), ctx.dtype("W"), lod_level=ctx.input_var("Ids").lod_level)


def _grad_lookup(g):
    g.op("lookup_table_grad", {"W": g.input("W"), "Ids": g.input("Ids"), "Out@GRAD": g.out_grad("Out")},
         {"W@GRAD": g.in_grad("W")}, g.attrs)


register("lookup_table", kernel_module="nn", grad_reads=("Ids", "W"),
         inputs=["W", "Ids"], outputs=["Out"], attrs=_LOOKUP_ATTRS, infer=_infer_lookup,
         grad=_grad_lookup,
         doc="Out = rows of W picked by Ids (int64); rows of padding_idx are zeros and get no gradient. "
             "The gradient of W is dense, or with is_sparse a SelectedRows: the ids looked up (duplicates "
             "kept, padding_idx left out) and the rows of Out@GRAD.")
register("lookup_table_v2", kernel_module="nn", grad_reads=("Ids", "W"),
         inputs=["W", "Ids"], outputs=["Out"], attrs=_LOOKUP_ATTRS,
         infer=lambda ctx: _infer_lookup(ctx, lambda ids, width: list(ids) + [width]), grad=_grad_lookup,
         doc="Fluid 1.8's lookup_table_v2 (fluid.embedding): lookup_table whose Out is Ids' shape plus the "
             "embedding dim (a trailing 1 of Ids is kept); the same gradient.")


def _infer_lookup_grad(ctx):
    w = ctx.input_var("W")
    ctx.set_output("W@GRAD", w.shape, w.dtype,
                   var_type=VarType.SELECTED_ROWS if ctx.attrs["is_sparse"] else VarType.LOD_TENSOR)


register("lookup_table_grad", kernel_module="nn",
         inputs=["W", "Ids", "Out@GRAD"], outputs=["W@GRAD"], attrs=_LOOKUP_ATTRS, infer=_infer_lookup_grad)
