"""deformable_psroi_pooling of Fluid 1.8 (the op of fluid.layers.deformable_roi_pooling; kernels in
kernels/<device>/detection_deform_roi.py): position-sensitive RoI pooling whose bins move by learned
offsets (Trans), with gradients wrt Input and Trans."""
from .define import Attr, fmt_shape, int_list, is_int, register

_POS = Attr(1, lambda v: is_int(v) and v > 0, "an int > 0")
_PAIR = Attr(lambda: [1, 1], lambda v: int_list(v) and len(v) == 2 and min(v) > 0, "2 ints > 0")


def _infer(ctx):
    x, rois, a = ctx.shape("Input"), ctx.shape("ROIs"), ctx.attrs
    if len(x) != 4:
        ctx.fail(f"Input {fmt_shape(x)} must be 4-D [N, C, H, W]")
    if len(rois) != 2 or rois[1] not in (4, -1):
        ctx.fail(f"ROIs {fmt_shape(rois)} must be [num_rois, 4] (x1, y1, x2, y2)")
    od, (gh, gw) = a["output_dim"], a["group_size"]
    if x[1] >= 0 and x[1] != od * gh * gw:
        ctx.fail(f"Input has {x[1]} channels; it needs output_dim * group_size = {od} * {gh} * {gw} = {od * gh * gw}")
    if not a["no_trans"]:
        if not ctx.has_input("Trans"):
            ctx.fail("Trans is needed unless no_trans")
        t = ctx.shape("Trans")
        if len(t) != 4 or (t[1] >= 0 and (t[1] % 2 or od % (t[1] // 2))) or list(t[2:]) != list(a["part_size"]):
            ctx.fail(f"Trans {fmt_shape(t)} must be [num_rois, 2 * classes, part_size...] = [R, 2 * classes, "
                     f"{a['part_size'][0]}, {a['part_size'][1]}], classes dividing output_dim={od}")
    shape = [rois[0], od, a["pooled_height"], a["pooled_width"]]
    ctx.set_output("Output", shape, ctx.dtype("Input"), lod_level=0)
    ctx.set_output("TopCount", shape, ctx.dtype("Input"), lod_level=0)


def _grad(g):
    ins = {s: g.input(s) for s in ("Input", "ROIs", "Trans") if g.input(s)}
    ins["Output@GRAD"] = g.out_grad("Output")
    outs = {"Input@GRAD": g.in_grad("Input")}
    if g.input("Trans"):
        outs["Trans@GRAD"] = g.in_grad("Trans")
    g.op("deformable_psroi_pooling_grad", ins, outs, g.attrs)


def _infer_grad(ctx):
    for slot in ("Input", "Trans"):
        if ctx.has_output(slot + "@GRAD"):
            ctx.set_output(slot + "@GRAD", ctx.shape(slot), ctx.dtype(slot))


_ATTRS = {"no_trans": False, "spatial_scale": 1.0, "output_dim": _POS, "group_size": _PAIR, "pooled_height": _POS,
          "pooled_width": _POS, "part_size": _PAIR, "sample_per_part": _POS, "trans_std": 0.1}
register("deformable_psroi_pooling", kernel_module="detection_deform_roi", inputs=["Input", "ROIs", "Trans?"],
         outputs=["Output", "TopCount"], attrs=_ATTRS, infer=_infer, grad=_grad,
         grad_reads=("Input", "ROIs", "Trans"), lod="drop", needs_lod=True,
         doc="Output[r, k, i, j] = the mean of sample_per_part^2 bilinear samples of Input[image(r), channel "
             "(k * group_h + gi) * group_w + gj] over bin (i, j) of the roi (corners rounded, scaled by "
             "spatial_scale, less 0.5), the bin moved by Trans[r, class of k, :, part of (i, j)] * trans_std * "
             "the roi's size; samples outside the map are skipped. TopCount: how many samples were inside.")
register("deformable_psroi_pooling_grad", kernel_module="detection_deform_roi",
         inputs=["Input", "ROIs", "Trans?", "Output@GRAD"], outputs=["Input@GRAD?", "Trans@GRAD?"], attrs=_ATTRS,
         infer=_infer_grad, lod="drop", needs_lod=True)
