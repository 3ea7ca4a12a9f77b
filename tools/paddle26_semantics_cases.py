"""The op cases of issue 96: where pe computed other values than Paddle 2.6.2 without a word, each one op as
Paddle's saved programs hold it (tools/paddle26_op_oracle.py records Paddle 2.6.2's values of them into
tests/data/paddle_oracle/semantics26.json; tests/ops/paddle26.py replays them with the other recorded cases).
Integer floor division and remainder with negative operands, int division, reductions saved with ``dim=[]``
(every axis in Paddle 2.x), expand_v2 with a -1 in its tensor-valued shape, and yolo_box on grids with H != W
(with IoU-aware scores and clip_bbox). A case is built as in tools/paddle26_op_cases.py. Pure numpy."""

import numpy as np

rng = np.random.default_rng(96)


def u(*shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, size=shape)


def case(op, inputs, attrs=None, outputs=("Out",), grad=(), kink=False):
    return dict(op=op, inputs=inputs, attrs=attrs or {}, outputs=list(outputs), grad=list(grad), kink=kink)


_NUM = np.array([-4, 0, -8, 7, 7, -7, 9, -9, 1, -1, 5, -6])
_DEN = np.array([3, 5, 3, -2, 2, -2, -3, 3, -7, 7, 5, -4])
_FNUM = np.array([-4.5, 0.0, -8.0, 7.0, 7.0, -7.0, 9.25, -9.0, 1e-3, -1e-3, 5.5, 0.75])
_FDEN = np.array([3.0, 5.0, 3.0, -2.0, 2.5, -2.0, -3.0, 0.7, -7.0, 7.0, 5.5, -0.25])

CASES = {}
for _op in ("elementwise_floordiv", "elementwise_mod", "elementwise_div"):
    CASES.update(
        {
            f"{_op}_int64_signs": case(_op, {"X": _NUM.astype(np.int64), "Y": _DEN.astype(np.int64)}),
            f"{_op}_int32_broadcast": case(
                _op,
                {"X": _NUM.reshape(3, 4).astype(np.int32), "Y": np.array([3, -2, 5, -7], np.int32)},
                {"axis": -1},
            ),
            f"{_op}_int64_axis": case(
                _op, {"X": _NUM.reshape(2, 3, 2).astype(np.int64), "Y": np.array([4, -3, 2], np.int64)}, {"axis": 1}
            ),
        }
    )
for _op in ("elementwise_floordiv", "elementwise_mod"):
    CASES[f"{_op}_float64_signs"] = case(_op, {"X": _FNUM, "Y": _FDEN})

# reductions saved with dim=[] and reduce_all False: Paddle 2.x reduces over every axis
_X = u(2, 3, 4)
for _op in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_amax", "reduce_amin"):
    CASES[f"{_op}_dim_empty"] = case(_op, {"X": _X}, {"dim": [], "reduce_all": False}, grad=("X",))
    CASES[f"{_op}_dim_empty_keep"] = case(_op, {"X": _X}, {"dim": [], "keep_dim": True, "reduce_all": False})
CASES["frobenius_norm_dim_empty"] = case("frobenius_norm", {"X": _X}, {"dim": [], "reduce_all": False}, grad=("X",))
_B = np.array([[True, False, True], [True, True, True]])
for _op in ("reduce_all", "reduce_any"):
    CASES[f"{_op}_dim_empty"] = case(_op, {"X": _B}, {"dim": [], "reduce_all": False})
    CASES[f"{_op}_dim_empty_keep"] = case(_op, {"X": _B}, {"dim": [], "keep_dim": True, "reduce_all": False})
CASES["logsumexp_axis_empty"] = case("logsumexp", {"X": _X}, {"axis": [], "reduce_all": False}, grad=("X",))

# expand_v2: a -1 in the shape given at run time keeps X's dim
CASES.update(
    {
        "expand_v2_shape_tensor_keep": case(
            "expand_v2", {"X": u(2, 1, 3), "Shape": np.array([-1, 4, -1], np.int32)}, {"shape": [-1, -1, -1]}
        ),
        "expand_v2_shape_tensor_keep_lead": case(
            "expand_v2", {"X": u(1, 3), "Shape": np.array([2, 5, -1], np.int64)}, {"shape": [-1, -1, -1]}
        ),
        "expand_v2_shapes_list_keep": case(
            "expand_v2",
            {"X": u(2, 1, 3), "expand_shapes_tensor": [np.array([v], np.int32) for v in (-1, 4, -1)]},
            {"shape": [-1, -1, -1]},
        ),
    }
)


def _yolo(h, w, anchors=(10, 13, 16, 30), classes=2, iou_aware=False, **attrs):
    a = len(anchors) // 2
    x = u(2, a * (5 + classes + int(iou_aware)), h, w, low=-3, high=3)
    size = np.array([[300, 400], [208, 160]], np.int32)
    return case(
        "yolo_box",
        {"X": x, "ImgSize": size},
        {
            "anchors": list(anchors),
            "class_num": classes,
            "conf_thresh": 0.3,
            "downsample_ratio": 32,
            "clip_bbox": True,
            "scale_x_y": 1.0,
            "iou_aware": iou_aware,
            "iou_aware_factor": 0.5,
            **attrs,
        },
        outputs=("Boxes", "Scores"),
    )


CASES.update(
    {
        "yolo_box_wide": _yolo(3, 5),
        "yolo_box_tall_noclip": _yolo(4, 2, clip_bbox=False),
        "yolo_box_wide_scale": _yolo(2, 6, scale_x_y=1.2, downsample_ratio=16),
        "yolo_box_iou_aware": _yolo(3, 4, iou_aware=True, iou_aware_factor=0.4),
        "yolo_box_iou_aware_noclip": _yolo(5, 3, anchors=(10, 13, 16, 30, 33, 23), iou_aware=True, clip_bbox=False),
        "yolo_box_square": _yolo(4, 4, classes=3),
    }
)

# issue 96, item 3: inputs Paddle 2.6.2 takes that pe refused. Comparisons of the narrow integers (uint8, int8,
# int16: paddle.equal, less_than, ... take them), broadcast both ways and along an axis; split with a 0 section
# (an empty part: forward only, Paddle's sum of an empty part for the gradient's loss refuses); fill_constant of
# int16 (dtype 1).
_I = np.array([[-3, 0, 7, 120], [5, -128, 0, 2], [9, 9, -1, 4]])
for _op in ("equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal"):
    for _dt in ("int16", "int8", "uint8"):
        _x = np.abs(_I).astype(_dt) if _dt == "uint8" else _I.astype(_dt)
        CASES[f"{_op}_{_dt}"] = case(_op, {"X": _x, "Y": _x[::-1].copy()})
        CASES[f"{_op}_{_dt}_broadcast"] = case(_op, {"X": _x, "Y": _x[1:2, :].copy()}, {"axis": -1})
CASES.update(
    {
        "split_zero_section": case(
            "split", {"X": u(4, 3)}, {"axis": 0, "num": 0, "sections": [2, 0, 2]}, outputs=[("Out", 3)]
        ),
        "split_zero_section_last": case(
            "split", {"X": u(2, 5)}, {"axis": 1, "num": 0, "sections": [0, -1, 0]}, outputs=[("Out", 3)]
        ),
        "split_zero_section_int64": case(
            "split", {"X": _I.astype(np.int64)}, {"axis": 1, "num": 0, "sections": [1, 0, 3]}, outputs=[("Out", 3)]
        ),
        "fill_constant_int16": case(
            "fill_constant", {}, {"shape": [2, 3], "dtype": 1, "value": -7.0, "str_value": "-7"}
        ),
        "fill_constant_int16_wide": case(
            "fill_constant", {}, {"shape": [3], "dtype": 1, "value": 300.0, "str_value": "300"}
        ),
        # Paddle 2.6's op tests (test_expand_as_v2_op.py's TestExpandAs_ZeroDim2, test_flip.py's
        # TestFlipOpEmptyAxis): a 0-D X as a 0-D Y, a flip of no axis (a copy); pe refused both
        "expand_as_v2_0d": case("expand_as_v2", {"X": np.array(1.75), "Y": np.array(-0.5)}, {"target_shape": []}),
        "flip_no_axis": case("flip", {"X": u(2, 3)}, {"axis": []}, grad=("X",)),
    }
)

# Paddle 2.6's op tests (test_prelu_op.py's TestModeChannelRank3NHWC, ...): prelu 'channel' with data_format NHWC
# takes one alpha per channel of X's last dim; pe refused
for _shape in ((2, 3, 4), (2, 3, 2, 4), (2, 2, 2, 3, 4)):
    CASES[f"prelu_channel_nhwc_rank{len(_shape)}"] = case(
        "prelu",
        {"X": u(*_shape), "Alpha": np.array([0.1, -0.2, 0.3, 0.25])},
        {"mode": "channel", "data_format": "NHWC"},
        grad=("X", "Alpha"),
        kink=True,
    )

# test_conv3d_transpose_op.py's NHWC cases: data_format 'NHWC' given to conv3d_transpose is channels last (pe refused)
CASES["conv3d_transpose_nhwc"] = case(
    "conv3d_transpose",
    {"Input": u(1, 2, 3, 2, 3), "Filter": u(3, 2, 2, 2, 2)},
    {"data_format": "NHWC", "strides": [1, 2, 1], "paddings": [0, 1, 0], "dilations": [1, 1, 1], "groups": 1},
    outputs=("Output",),
    grad=("Input", "Filter"),
)
