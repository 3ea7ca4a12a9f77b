"""Paddle 2.6.2 as the oracle of ``paddle.nn.functional`` calls pe refused or built otherwise before 2026-11-29:
batch_norm without weight and bias (1 and 0, as Paddle's kernel takes them), interpolate's 'area' mode (the
adaptive average pool to ``size``) and its 'bicubic' mode (pe refused it before 2026-11-30); and of ``paddle.vision.ops`` functions pe lacked before 2026-11-30
(prior_box, box_coder, roi_pool, RoIPool, roi_align, RoIAlign, yolo_loss). Records each case's values, dtype, shape and the float inputs' gradients into
tests/data/paddle_oracle/functional26.json, with tools/paddle_function_oracle.py's runner;
tests/paddle/test_paddle_function_oracle.py replays them on pe.

    /work/p26/bin/python tools/paddle26_functional_oracle.py    # paddlepaddle==2.6.2"""

import importlib.util
import os

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "paddle_function_oracle", os.path.join(_HERE, "paddle_function_oracle.py")
)
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)
case = base._case

OUT = os.path.join(os.path.dirname(_HERE), "tests", "data", "paddle_oracle", "functional26.json")

IMG = np.linspace(-1, 1, 2 * 2 * 5 * 5).astype("float32").reshape(2, 2, 5, 5)
SEQ = np.linspace(-2, 3, 2 * 3 * 7).astype("float32").reshape(2, 3, 7)
MEAN = np.array([0.1, -0.2], "float32")
VAR = np.array([2.0, 0.5], "float32")
YOLO_BOX = np.array(
    [[[0.3, 0.4, 0.2, 0.3], [0.7, 0.6, 0.4, 0.2]], [[0.5, 0.5, 0.6, 0.5], [0.0, 0.0, 0.0, 0.0]]], "float32"
)
YOLO_LABEL = np.array([[1, 0], [0, 0]], "int32")
BOXES = np.array([[0.5, 0.5, 3.0, 4.0], [1.0, 0.0, 4.0, 2.5], [0.0, 1.0, 2.0, 4.5]], "float32")


def _batch_norm(F, x, mean, var, **kw):
    return F.batch_norm(x, mean, var, training=False, **kw)


# (grad=False: Paddle 2.6.2's batch_norm_grad refuses a batch_norm without Scale, "HasInput(Scale)")
CASES = {
    "batch_norm_no_weight_bias": case(
        lambda P, x, m, v: [_batch_norm(P.nn.functional, x, m, v)], grad=False, x=IMG, m=MEAN, v=VAR
    ),
    "batch_norm_weight_only": case(
        lambda P, x, m, v: [_batch_norm(P.nn.functional, x, m, v, weight=v * 2.0)], grad=False, x=IMG, m=MEAN, v=VAR
    ),
    "interpolate_area_2d": case(lambda P, x: [P.nn.functional.interpolate(x, size=[3, 2], mode="area")], x=IMG),
    "interpolate_area_1d": case(lambda P, x: [P.nn.functional.interpolate(x, size=4, mode="area")], x=SEQ),
    "interpolate_bicubic": case(
        lambda P, x: [
            P.nn.functional.interpolate(x, size=[7, 4], mode="bicubic"),
            P.nn.functional.interpolate(x, scale_factor=1.6, mode="bicubic", align_corners=True),
            P.nn.functional.interpolate(x, size=[3, 8], mode="bicubic", data_format="NHWC"),
        ],
        x=IMG,
    ),
    "vision_prior_box": case(
        lambda P, x, im: list(P.vision.ops.prior_box(x, im, [2.0, 4.0], [5.0, 6.0], [2.0], flip=True, clip=True)),
        grad=False,
        x=IMG,
        im=np.zeros((2, 3, 10, 10), "float32"),
    ),
    "vision_box_coder": case(
        lambda P, prior, target: [
            P.vision.ops.box_coder(prior, [0.1, 0.1, 0.2, 0.2], target, "encode_center_size"),
            P.vision.ops.box_coder(
                prior,
                [0.1, 0.1, 0.2, 0.2],
                P.tile(P.unsqueeze(target, 1) * 0.1, [1, 3, 1]),
                "decode_center_size",
                axis=0,
            ),
        ],
        grad=False,
        prior=BOXES,
        target=BOXES[::-1].copy() + 0.5,
    ),
    "vision_roi_pool": case(
        lambda P, x, boxes, num: [
            P.vision.ops.roi_pool(x, boxes, num, 2, spatial_scale=0.5),
            P.vision.ops.RoIPool((3, 2))(x, boxes, num),
        ],
        x=IMG * 3.0,
        boxes=BOXES * 2.0,
        num=np.array([1, 2], "int32"),
    ),
    "vision_roi_align": case(
        lambda P, x, boxes, num: [
            P.vision.ops.roi_align(x, boxes, num, 2, spatial_scale=0.5),
            P.vision.ops.roi_align(x, boxes, num, (3, 2), sampling_ratio=2, aligned=False),
            P.vision.ops.RoIAlign(2, 0.25)(x, boxes, num),  # (rois of at least a cell: below, Paddle 2.6.2's CPU
            # roi_align_grad widens them to one cell, its forward does not)
        ],
        x=IMG * 3.0,
        boxes=BOXES * 2.0,
        num=np.array([1, 2], "int32"),
    ),
    "vision_yolo_loss": case(  # (the boxes and labels constants: Paddle gives gt_box no gradient)
        lambda P, x: [
            P.vision.ops.yolo_loss(
                x,
                P.assign(YOLO_BOX),
                P.assign(YOLO_LABEL),
                [10, 13, 16, 30, 33, 23],
                [0, 1],
                2,
                0.7,
                32,
                use_label_smooth=False,
            )
        ],
        x=np.linspace(-1, 1, 2 * 14 * 3 * 3).astype("float32").reshape(2, 14, 3, 3),
    ),
}

if __name__ == "__main__":
    base.main(CASES, OUT, "tools/paddle26_functional_oracle.py")
