"""``paddle.vision.ops`` in pe, with Paddle 2.6's signatures: ``distribute_fpn_proposals`` over pe's op of
that name (the rois of each image a LoD sequence); ``yolo_box`` over the yolo_box op; ``deform_conv2d`` and
``DeformConv2D`` over deformable_conv (with a mask) and deformable_conv_v1 (without), a bias added along
the channels, as Paddle 2.6's static branch builds them; ``prior_box``, ``box_coder``, ``roi_pool`` /
``RoIPool``, ``roi_align`` / ``RoIAlign`` (``aligned``: the roi shifted by half a cell) and ``yolo_loss`` over the
ops of those names (Fluid 1.8's layers, Paddle 2.6's argument order and checks); ``read_file`` over the read_file op.
pe lacks psroi_pool's RoisNum, nms, matrix_nms, generate_proposals and decode_jpeg here."""

from ...base.errors import PeError
from ...layers import detection_box as _box, detection_roi as _roi, detection_yolo as _yolo
from ...layers.checks import check_type
from ...layers.checks import check_variable_and_dtype
from ...layers.detection_proposals import distribute_fpn_proposals as _distribute
from ...layers.helper import LayerHelper
from ..nn.layer import Layer
from ..nn.layers.conv import conv_parameters

__all__ = [
    "distribute_fpn_proposals",
    "yolo_box",
    "deform_conv2d",
    "DeformConv2D",
    "prior_box",
    "box_coder",
    "roi_pool",
    "RoIPool",
    "roi_align",
    "RoIAlign",
    "yolo_loss",
    "read_file",
]


def distribute_fpn_proposals(
    fpn_rois, min_level, max_level, refer_level, refer_scale, pixel_offset=False, rois_num=None, name=None
):
    """(the levels' rois, restore_ind, None): ``fpn_rois`` [R, 4] spread over levels
    min_level..max_level by size (Paddle 2.6's: an AssertionError for levels not > 0, fewer than
    two or 100 and more; a TypeError for rois that are not float32/float64). pe splits the rois by
    their LoD: ``rois_num`` (the rois per image as a tensor) is refused with one line."""
    assert max_level > 0 and min_level > 0, "min_level and max_level should be greater than 0"
    levels = max_level - min_level + 1
    assert levels > 1, "max_level should be greater than min_level"
    assert levels < 100, "Only support max to 100 levels, (max_level - min_level + 1 < 100)"
    if rois_num is not None:
        raise PeError(
            "paddle.vision.ops.distribute_fpn_proposals: pe takes the rois per image from fpn_rois' LoD "
            "(lod_level=1), not from rois_num: feed the rois as a LoD tensor and leave rois_num None"
        )
    multi, restore = _distribute(
        fpn_rois, min_level, max_level, refer_level, refer_scale, name, pixel_offset=pixel_offset
    )
    return multi, restore, None


def yolo_box(
    x,
    img_size,
    anchors,
    class_num,
    conf_thresh,
    downsample_ratio,
    clip_bbox=True,
    name=None,
    scale_x_y=1.0,
    iou_aware=False,
    iou_aware_factor=0.5,
):
    """(boxes [N, M, 4], scores [N, M, class_num]): the yolo_box op of x [N, anchors * (5 + class_num), H, W]
    and img_size [N, 2] int32; iou_aware's extra channels are refused by the op in one line."""
    return _yolo.yolo_box(
        x,
        img_size,
        anchors,
        class_num,
        float(conf_thresh),
        downsample_ratio,
        clip_bbox,
        name,
        scale_x_y,
        iou_aware=iou_aware,
        iou_aware_factor=iou_aware_factor,
    )


def _pair(v, what):
    v = [v, v] if isinstance(v, int) else list(v)
    if len(v) != 2:
        raise ValueError(f"deform_conv2d: {what}={v} must be an int or 2 ints")
    return [int(e) for e in v]


def deform_conv2d(
    x, offset, weight, bias=None, stride=1, padding=0, dilation=1, deformable_groups=1, groups=1, mask=None, name=None
):
    """Deformable convolution of x [N, C, H, W] by weight [C_out, C / groups, kh, kw] at the kernel taps moved
    by offset [N, 2 * dg * kh * kw, H_out, W_out]: v2 (each tap scaled by mask) with a mask, v1 without;
    bias [C_out] added along the channels."""
    check_variable_and_dtype(x, "x", ("float32", "float64"), "deform_conv2d")
    check_variable_and_dtype(offset, "offset", ("float32", "float64"), "deform_conv2d")
    helper = LayerHelper("deformable_conv", name=name)
    inputs = {"Input": [x], "Filter": [weight], "Offset": [offset]}
    if mask is not None:
        inputs["Mask"] = [mask]
    attrs = {
        "strides": _pair(stride, "stride"),
        "paddings": _pair(padding, "padding"),
        "dilations": _pair(dilation, "dilation"),
        "groups": int(groups),
        "deformable_groups": int(deformable_groups),
        "im2col_step": 1,
    }
    out = helper.create_variable_for_type_inference(x.dtype)
    op_type = "deformable_conv_v1" if mask is None else "deformable_conv"
    helper.append_op(op_type, inputs, {"Output": [out]}, attrs)
    if bias is None:
        return out
    biased = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("elementwise_add", {"X": [out], "Y": [bias]}, {"Out": [biased]}, {"axis": 1})
    return biased


class DeformConv2D(Layer):
    """paddle.vision.ops.DeformConv2D: deform_conv2d with a weight (Normal(0, sqrt(2 / (kh * kw * C_in))))
    and a bias of its own; ``forward(x, offset, mask=None)``."""

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        deformable_groups=1,
        groups=1,
        weight_attr=None,
        bias_attr=None,
    ):
        super().__init__()
        assert weight_attr is not False, "weight_attr should not be False in Conv."
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups.")
        self._conv = dict(
            stride=_pair(stride, "stride"),
            padding=_pair(padding, "padding"),
            dilation=_pair(dilation, "dilation"),
            deformable_groups=deformable_groups,
            groups=groups,
        )
        kernel = _pair(kernel_size, "kernel_size")
        self.weight, self.bias = conv_parameters(
            self, in_channels, out_channels, kernel, groups, weight_attr, bias_attr
        )

    def forward(self, x, offset, mask=None):
        return deform_conv2d(x, offset, self.weight, self.bias, mask=mask, **self._conv)


def prior_box(
    input,
    image,
    min_sizes,
    max_sizes=None,
    aspect_ratios=[1.0],  # noqa: B006 -- Paddle's defaults
    variance=[0.1, 0.1, 0.2, 0.2],  # noqa: B006
    flip=False,
    clip=False,
    steps=[0.0, 0.0],  # noqa: B006
    offset=0.5,
    min_max_aspect_ratios_order=False,
    name=None,
):
    """SSD prior boxes for each cell of ``input``: (boxes, variances), each [H, W, num_priors, 4] (the prior_box op)."""
    check_variable_and_dtype(input, "input", ("uint8", "int8", "float32", "float64"), "prior_box")
    return _box.prior_box(
        input,
        image,
        min_sizes,
        max_sizes,
        aspect_ratios,
        variance,
        flip,
        clip,
        steps,
        offset,
        name,
        min_max_aspect_ratios_order,
    )


def box_coder(
    prior_box, prior_box_var, target_box, code_type="encode_center_size", box_normalized=True, axis=0, name=None
):
    """Encodes target boxes against prior boxes, or decodes offsets into boxes (the box_coder op)."""
    check_variable_and_dtype(prior_box, "prior_box", ("float32", "float64"), "box_coder")
    check_variable_and_dtype(target_box, "target_box", ("float32", "float64"), "box_coder")
    return _box.box_coder(prior_box, prior_box_var, target_box, code_type, box_normalized, name, axis)


def roi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    """Max pooling of each box of ``x`` (``boxes_num``: boxes per image) into ``output_size`` bins (the roi_pool op)."""
    check_type(output_size, "output_size", (int, tuple), "roi_pool")
    height, width = (output_size, output_size) if isinstance(output_size, int) else output_size
    return _roi.roi_pool(x, boxes, height, width, spatial_scale, rois_num=boxes_num, name=name)


class RoIPool(Layer):
    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size, self._spatial_scale = output_size, spatial_scale

    def forward(self, x, boxes, boxes_num):
        return roi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)

    def extra_repr(self):
        return f"output_size={self._output_size}, spatial_scale={self._spatial_scale}"


def roi_align(x, boxes, boxes_num, output_size, spatial_scale=1.0, sampling_ratio=-1, aligned=True, name=None):
    """RoIAlign of each box of ``x`` (``boxes_num``: boxes per image) into ``output_size`` bins (the roi_align op;
    ``aligned``, Paddle 2.x's default: the box shifted by half a cell)."""
    check_type(output_size, "output_size", (int, tuple), "roi_align")
    check_variable_and_dtype(x, "x", ("float32", "float64"), "roi_align")
    check_variable_and_dtype(boxes, "boxes", ("float32", "float64"), "roi_align")
    height, width = (output_size, output_size) if isinstance(output_size, int) else output_size
    helper = LayerHelper("roi_align", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    inputs = {"X": [x], "ROIs": [boxes]}
    if boxes_num is not None:
        inputs["RoisNum"] = [boxes_num]
    attrs = {"pooled_height": height, "pooled_width": width, "spatial_scale": float(spatial_scale)}
    attrs.update(sampling_ratio=int(sampling_ratio), aligned=bool(aligned))
    helper.append_op("roi_align", inputs, {"Out": [out]}, attrs)
    return out


class RoIAlign(Layer):
    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size, self._spatial_scale = output_size, spatial_scale

    def forward(self, x, boxes, boxes_num, aligned=True):
        return roi_align(x, boxes, boxes_num, self._output_size, self._spatial_scale, aligned=aligned)


def yolo_loss(
    x,
    gt_box,
    gt_label,
    anchors,
    anchor_mask,
    class_num,
    ignore_thresh,
    downsample_ratio,
    gt_score=None,
    use_label_smooth=True,
    name=None,
    scale_x_y=1.0,
):
    """YOLOv3's loss of one output level (the yolov3_loss op), with Paddle 2.6's checks."""
    check_variable_and_dtype(x, "x", ("float32", "float64"), "yolo_loss")
    check_variable_and_dtype(gt_box, "gt_box", ("float32", "float64"), "yolo_loss")
    check_variable_and_dtype(gt_label, "gt_label", ("int32",), "yolo_loss")
    return _yolo.yolov3_loss(
        x,
        gt_box,
        gt_label,
        anchors,
        anchor_mask,
        class_num,
        ignore_thresh,
        downsample_ratio,
        gt_score,
        use_label_smooth,
        name,
        scale_x_y,
    )


def read_file(filename, name=None):
    """The bytes of the file ``filename`` as a 1-D uint8 tensor, read when the program runs (the read_file op)."""
    helper = LayerHelper("read_file", name=name)
    out = helper.create_variable_for_type_inference("uint8")
    helper.append_op("read_file", {}, {"Out": [out]}, {"filename": filename})
    return out
