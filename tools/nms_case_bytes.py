"""The NMS, proposal and detection-metric ops' results, to compare two trees bit for bit beside
tools/op_case_bytes.py's op cases (``dump ROOT detection_nms detection_proposals detection_metric``):
multiclass_nms, multiclass_nms2, multiclass_nms3, matrix_nms, locality_aware_nms, retinanet_detection_output, nms,
generate_proposals, generate_proposals_v2, distribute_fpn_proposals, collect_fpn_proposals and detection_map called
through their CPU kernels (``OpDef.kernel``) with a LoD and Fluid's or Paddle 2.x's meaning in the call's context,
over float32 and float64 values, Fortran-ordered and strided inputs, every attribute variant, nothing kept, empty
batches and refusals; and some of them as executor steps, called twice on one shape with other values. Beside each
output's bytes its shape and dtype, and the LoD the kernel set; a refusal's type and message.

    PYTHONPATH=/work/main python tools/nms_case_bytes.py a.npz
    PYTHONPATH=. python tools/nms_case_bytes.py b.npz
    python tools/op_case_bytes.py compare a.npz b.npz
"""

import sys
import zlib

import numpy as np


def _rng(key):
    return np.random.default_rng(zlib.crc32(key.encode()))


def _boxes(key, shape, scale=1.0, dtype="float64"):
    rng = _rng(key)
    lo = rng.uniform(0, 0.5, shape + (2,))
    return (np.concatenate([lo, lo + rng.uniform(0.05, 0.5, shape + (2,))], axis=-1) * scale).astype(dtype)


def _u(key, shape, dtype="float64", lo=0.0, hi=1.0):
    return _rng(key).uniform(lo, hi, shape).astype(dtype)


def _layouts(x):
    """x as it is, Fortran-ordered and strided (a view of a wider array)."""
    wide = np.repeat(x, 2, axis=-1)[..., ::2]
    return [("c", x), ("f", np.asfortranarray(x)), ("s", wide)]


def _save(results, key, outs, ctx):
    for name, value in sorted(outs.items()):
        for j, a in enumerate(value if isinstance(value, list) else [value]):
            a = np.asarray(a)
            results[f"{key}|{name}|{j}|{a.dtype.str}|{a.shape}"] = np.frombuffer(a.tobytes(), dtype=np.uint8)
    results[f"{key}|lod"] = np.frombuffer(repr((ctx.out_lod, ctx.out_lods)).encode(), dtype=np.uint8)


def _call(results, op, key, ins, attrs=None, lod=None, paddle2=False):
    from pe_cli.kernels.context import KernelContext, takes_context
    from pe_cli.ops import registry

    opdef = registry.get(op)
    attrs = dict(opdef.default_attrs(), **(attrs or {}))
    kernel, ctx = opdef.kernel("cpu"), KernelContext(lod=dict(lod or {}), paddle2=paddle2)
    try:
        outs = kernel(dict(ins), attrs, ctx) if takes_context(kernel) else kernel(dict(ins), attrs)
    except Exception as e:  # the same refusal is part of the same behaviour
        results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
        return None
    _save(results, key, outs, ctx)
    outs["@lod"] = ctx.out_lod
    return outs


_NMS = {
    "background_label": 0,
    "score_threshold": 0.2,
    "nms_top_k": 8,
    "nms_threshold": 0.4,
    "nms_eta": 1.0,
    "keep_top_k": 10,
    "normalized": True,
}
_NMS_FORMS = [
    _NMS,
    {**_NMS, "background_label": -1, "keep_top_k": 5, "nms_top_k": -1, "normalized": False, "nms_eta": 0.8},
    {**_NMS, "nms_threshold": 0.7, "nms_eta": 0.6, "keep_top_k": -1},
    {**_NMS, "keep_top_k": 2, "background_label": 2},
    {**_NMS, "score_threshold": 2.0},
    {**_NMS, "score_threshold": 0.0, "nms_top_k": 3},
]


def _nms_ops(results):
    for dtype in ("float32", "float64"):
        for n, (images, m, classes) in enumerate([(2, 12, 3), (1, 7, 4), (3, 5, 2), (0, 4, 3), (2, 0, 3)]):
            boxes = _boxes(f"b|{dtype}|{n}", (images, m), 1.0 if n % 2 else 20.0, dtype)
            scores = _u(f"s|{dtype}|{n}", (images, classes, m), dtype)
            for f, attrs in enumerate(_NMS_FORMS):
                attrs = dict(attrs, normalized=attrs["normalized"] and n % 2 == 1)
                for name, b in _layouts(boxes) if f == 0 else [("c", boxes)]:
                    ins = {"BBoxes": b, "Scores": scores}
                    for op in ("multiclass_nms", "multiclass_nms2", "multiclass_nms3", "matrix_nms"):
                        for p2 in (False, True):
                            key = f"{op}|{dtype}|{n}|{f}|{name}|{p2}"
                            _call(results, op, key, ins, attrs, paddle2=p2)
                    _call(results, "locality_aware_nms", f"la|{dtype}|{n}|{f}|{name}", ins, attrs)
            for f, (sigma, gauss, post) in enumerate([(2.0, False, 0.0), (2.0, True, 0.1), (0.5, True, 0.3)]):
                attrs = {**_NMS, "use_gaussian": gauss, "gaussian_sigma": sigma, "post_threshold": post}
                _call(results, "matrix_nms", f"mx|{dtype}|{n}|{f}", {"BBoxes": boxes, "Scores": scores}, attrs)
        # 2-D Scores [M, C] with BBoxes [M, C, 4]: a LoD, RoisNum (multiclass_nms3), or neither (refused)
        boxes = _boxes(f"lb|{dtype}", (12, 3), 1.0, dtype)
        scores = _u(f"ls|{dtype}", (12, 3), dtype)
        for j, offs in enumerate([[0, 5, 12], [0, 12], [0, 0, 7, 12], [0, 0]]):
            rows = offs[-1]
            b, s = boxes[:rows], scores[:rows]
            for f, attrs in enumerate(_NMS_FORMS):
                for slot in ("BBoxes", "Scores"):
                    for op in ("multiclass_nms", "multiclass_nms2", "multiclass_nms3"):
                        for p2 in (False, True):
                            key = f"{op}|lod|{dtype}|{j}|{f}|{slot}|{p2}"
                            _call(results, op, key, {"BBoxes": b, "Scores": s}, attrs, {slot: [offs]}, p2)
                counts = np.diff(offs).astype("int32")
                ins = {"BBoxes": b, "Scores": s, "RoisNum": counts}
                _call(results, "multiclass_nms3", f"nms3|rn|{dtype}|{j}|{f}", ins, attrs, paddle2=True)
            for op in ("multiclass_nms", "multiclass_nms2", "multiclass_nms3"):
                _call(results, op, f"{op}|nolod|{dtype}|{j}", {"BBoxes": b, "Scores": s}, _NMS)
        # locality_aware_nms's polygons (8 values) and chains of overlapping boxes
        quads = _u(f"q|{dtype}", (2, 6, 8), dtype, 0, 10)
        quads[..., 0::2] += np.arange(6)[None, :, None]
        for f, attrs in enumerate(_NMS_FORMS[:4]):
            ins = {"BBoxes": quads, "Scores": _u(f"qs|{dtype}", (2, 2, 6), dtype)}
            _call(results, "locality_aware_nms", f"la|quad|{dtype}|{f}", ins, dict(attrs, normalized=False))
        chain = np.cumsum(_u(f"ch|{dtype}", (2, 9, 4), dtype, 0, 0.05), axis=1) + np.array([0, 0, 0.3, 0.3])
        for f, attrs in enumerate(_NMS_FORMS[:3]):
            ins = {"BBoxes": chain.astype(dtype), "Scores": _u(f"chs|{dtype}", (2, 3, 9), dtype)}
            _call(results, "locality_aware_nms", f"la|chain|{dtype}|{f}", ins, attrs)


def _retinanet(results):
    for dtype in ("float32", "float64"):
        for n, (images, levels) in enumerate([(2, (12, 6)), (1, (8,)), (2, (4, 6, 3)), (0, (5, 4))]):
            rng = _rng(f"rt|{dtype}|{n}")
            anchors = []
            for m, size in zip(levels, (16, 32, 64)):
                xy = rng.uniform(0, 48, (m, 2))
                anchors.append(np.concatenate([xy, xy + size], axis=1).astype(dtype))
            ins = {
                "BBoxes": [rng.normal(0, 0.3, (images, m, 4)).astype(dtype) for m in levels],
                "Scores": [rng.uniform(0, 1, (images, m, 3)).astype(dtype) for m in levels],
                "Anchors": anchors,
                "ImInfo": np.array([[64.0, 64.0, 1.0], [80.0, 72.0, 1.5]][:images], dtype).reshape(-1, 3),
            }
            for f, attrs in enumerate(
                [
                    {},
                    {"score_threshold": 0.5, "nms_top_k": 4, "keep_top_k": 5},
                    {"nms_threshold": 0.1, "nms_eta": 0.7, "keep_top_k": -1, "nms_top_k": -1},
                    {"score_threshold": 2.0},
                ]
            ):
                _call(results, "retinanet_detection_output", f"rt|{dtype}|{n}|{f}", ins, attrs)
            strided = dict(ins, Scores=[np.repeat(s, 2, axis=-1)[..., ::2] for s in ins["Scores"]])
            _call(results, "retinanet_detection_output", f"rt|{dtype}|{n}|s", strided, {})
        bad = {"BBoxes": [np.zeros((1, 3, 4), dtype)], "Scores": [np.zeros((1, 3, 2), dtype)], "Anchors": []}
        _call(results, "retinanet_detection_output", f"rt|{dtype}|bad", dict(bad, ImInfo=np.ones((1, 3), dtype)))


def _plain_nms(results):
    for dtype in ("float32", "float64"):
        for n, count in enumerate((0, 1, 9, 40)):
            boxes = _boxes(f"pn|{dtype}|{n}", (count,), 10.0, dtype)
            for thr in (0.0, 0.3, 0.5, 1.0):
                for name, b in _layouts(boxes):
                    _call(results, "nms", f"nms|{dtype}|{n}|{thr}|{name}", {"Boxes": b}, {"iou_threshold": thr})


def _proposal_inputs(key, n, a, h, w, dtype):
    rng = _rng(key)
    xy = rng.uniform(0, 30, (h, w, a, 2))
    anchors = np.concatenate([xy, xy + rng.uniform(4, 20, (h, w, a, 2))], axis=-1)
    return {
        "Scores": rng.uniform(0, 1, (n, a, h, w)).astype(dtype),
        "BboxDeltas": rng.normal(0, 0.5, (n, 4 * a, h, w)).astype(dtype),
        "ImInfo": np.array([[40.0, 48.0, 1.0], [36.0, 30.0, 0.8], [20.0, 20.0, 2.0]][:n], dtype).reshape(-1, 3),
        "Anchors": anchors.astype(dtype),
        "Variances": np.tile(np.array([0.1, 0.1, 0.2, 0.2], dtype), (h, w, a, 1)),
    }


_FPN = {"min_level": 2, "max_level": 3, "refer_level": 4, "refer_scale": 224}


def _proposals(results):
    forms = [
        {"pre_nms_topN": 20, "post_nms_topN": 8, "nms_thresh": 0.5, "min_size": 1.0},
        {"pre_nms_topN": -1, "post_nms_topN": -1, "nms_thresh": 0.7, "min_size": 4.0, "eta": 0.8},
        {"pre_nms_topN": 6, "post_nms_topN": 3, "nms_thresh": 0.0, "min_size": 0.1},
        {"pre_nms_topN": 10, "post_nms_topN": 5, "nms_thresh": 0.5, "min_size": 100.0},
    ]
    for dtype in ("float32", "float64"):
        for n, (images, a, h, w) in enumerate([(2, 3, 4, 5), (1, 1, 2, 2), (3, 2, 3, 3), (0, 2, 2, 2)]):
            ins = _proposal_inputs(f"gp|{dtype}|{n}", images, a, h, w, dtype)
            for f, attrs in enumerate(forms):
                _call(results, "generate_proposals", f"gp|{dtype}|{n}|{f}", ins, attrs)
                v2 = {k: v for k, v in ins.items() if k != "ImInfo"}
                v2["ImShape"] = np.ascontiguousarray(ins["ImInfo"][:, :2])
                _call(results, "generate_proposals_v2", f"gp2|{dtype}|{n}|{f}", v2, attrs)
            fort = {k: np.asfortranarray(v) for k, v in ins.items()}
            _call(results, "generate_proposals", f"gp|{dtype}|{n}|f", fort, forms[0])
        ins = _proposal_inputs(f"gpbad|{dtype}", 2, 3, 4, 5, dtype)
        _call(results, "generate_proposals", f"gp|{dtype}|bad1", dict(ins, BboxDeltas=ins["BboxDeltas"][:, :8]))
        _call(results, "generate_proposals", f"gp|{dtype}|bad2", dict(ins, Anchors=ins["Anchors"][:2]))
        _call(results, "generate_proposals", f"gp|{dtype}|bad3", dict(ins, ImInfo=ins["ImInfo"][:1]))
        _call(results, "generate_proposals", f"gp|{dtype}|bad4", dict(ins, Variances=ins["Variances"][:, :2]))
        # distribute_fpn_proposals: levels, scales, pixel offsets, a LoD or none, empty
        rois = _boxes(f"fpn|{dtype}", (14,), 300.0, dtype)
        rois[3] = [5, 5, 4, 4]
        for j, lod in enumerate([{"FpnRois": [[0, 4, 14]]}, {}, {"FpnRois": [[0, 0, 14, 14]]}]):
            for f, attrs in enumerate(
                [
                    {"min_level": 2, "max_level": 5, "refer_level": 4, "refer_scale": 224},
                    {"min_level": 2, "max_level": 5, "refer_level": 4, "refer_scale": 224, "pixel_offset": False},
                    {"min_level": 1, "max_level": 1, "refer_level": 3, "refer_scale": 56},
                    {"min_level": 3, "max_level": 4, "refer_level": 2, "refer_scale": 10},
                ]
            ):
                for name, r in _layouts(rois):
                    key = f"dist|{dtype}|{j}|{f}|{name}"
                    _call(results, "distribute_fpn_proposals", key, {"FpnRois": r}, attrs, lod)
        _call(results, "distribute_fpn_proposals", f"dist|{dtype}|empty", {"FpnRois": rois[:0]}, _FPN)
        # collect_fpn_proposals: levels, a LoD or none, top N, mismatches
        splits = [(2, 5), (1, 3), (0, 4)]
        lrois = [_boxes(f"col|{dtype}|{k}", (k,), 50.0, dtype) for _, k in splits]
        lscores = [_u(f"cols|{dtype}|{k}", (k, 1), dtype) for _, k in splits]
        lod = {"MultiLevelRois": [[[0, j, k]] for j, k in splits]}
        for top in (0, 3, 7, 100):
            ins = {"MultiLevelRois": lrois, "MultiLevelScores": lscores}
            _call(results, "collect_fpn_proposals", f"col|{dtype}|{top}", ins, {"post_nms_topN": top}, lod)
            _call(results, "collect_fpn_proposals", f"col|{dtype}|{top}|nolod", ins, {"post_nms_topN": top})
            strided = {"MultiLevelRois": [np.repeat(r, 2, axis=-1)[:, ::2] for r in lrois], "MultiLevelScores": lscores}
            _call(results, "collect_fpn_proposals", f"col|{dtype}|{top}|s", strided, {"post_nms_topN": top}, lod)
        bad = {"MultiLevelRois": lrois, "MultiLevelScores": lscores[:2]}
        _call(results, "collect_fpn_proposals", f"col|{dtype}|bad1", bad, {}, lod)
        bad = {"MultiLevelRois": lrois, "MultiLevelScores": lscores}
        badlod = {"MultiLevelRois": [[[0, 2, 5]], [[0, 3]], [[0, 1, 2, 4]]]}
        _call(results, "collect_fpn_proposals", f"col|{dtype}|bad2", bad, {}, badlod)
        bad = {"MultiLevelRois": lrois, "MultiLevelScores": [s[:1] for s in lscores]}
        _call(results, "collect_fpn_proposals", f"col|{dtype}|bad3", bad, {}, lod)


def _detection_map(results):
    for dtype in ("float32", "float64"):
        rng = _rng(f"map|{dtype}")
        dets, gts = [], []
        for i, (nd, ng) in enumerate([(6, 3), (0, 2), (5, 4)]):
            d = np.concatenate(
                [rng.integers(0, 4, (nd, 1)), rng.uniform(0, 1, (nd, 1)), _boxes(f"md|{dtype}|{i}", (nd,))], axis=1
            )
            g = np.concatenate(
                [rng.integers(0, 4, (ng, 1)), rng.integers(0, 2, (ng, 1)), _boxes(f"mg|{dtype}|{i}", (ng,))], axis=1
            )
            g[: ng // 2, 2:] = d[: ng // 2, 2:] if nd else g[: ng // 2, 2:]
            if nd and ng:
                g[0, 0] = d[0, 0]
            dets.append(d)
            gts.append(g)
        det = np.concatenate(dets).astype(dtype)
        gt = np.concatenate(gts).astype(dtype)
        lod = {"DetectRes": [[0, 6, 6, 11]], "Label": [[0, 3, 5, 9]]}
        for f, attrs in enumerate(
            [
                {"class_num": 4},
                {"class_num": 4, "ap_type": "11point"},
                {"class_num": 4, "evaluate_difficult": False},
                {"class_num": 5, "background_label": -1, "overlap_threshold": 0.3},
                {"class_num": 4, "background_label": 1},
            ]
        ):
            key = f"map|{dtype}|{f}"
            for label in (gt, np.ascontiguousarray(gt[:, [0, 2, 3, 4, 5]])):
                key += "|l"
                first = _call(results, "detection_map", key, {"DetectRes": det, "Label": label}, attrs, lod)
                if first is None:
                    continue
                state = {
                    "HasState": np.array([1], "int32"),
                    "PosCount": first["AccumPosCount"],
                    "TruePos": first["AccumTruePos"],
                    "FalsePos": first["AccumFalsePos"],
                }
                out_lod = first["@lod"]
                state_lod = dict(lod, TruePos=out_lod["AccumTruePos"], FalsePos=out_lod["AccumFalsePos"])
                ins = {"DetectRes": det, "Label": label, **state}
                _call(results, "detection_map", key + "|st", ins, attrs, state_lod)
                _call(
                    results,
                    "detection_map",
                    key + "|st2",
                    {"DetectRes": det[:6], "Label": label[:3], **state},
                    attrs,
                    dict(state_lod, DetectRes=[[0, 6]], Label=[[0, 3]]),
                )
                zero = dict(state, HasState=np.array([0], "int32"))
                _call(results, "detection_map", key + "|st0", {"DetectRes": det, "Label": label, **zero}, attrs, lod)
        _call(
            results,
            "detection_map",
            f"map|{dtype}|bad",
            {"DetectRes": det, "Label": gt},
            {"class_num": 4},
            {"DetectRes": [[0, 6, 11]], "Label": [[0, 3, 5, 9]]},
        )


def _steps(results):
    """Some ops as executor steps, each called on one shape three times with other values (a Meta kept per
    signature must hold nothing the values decide)."""
    from pe_cli.base.places import CPUPlace
    from pe_cli.executor.plan import OpStep, Values, run_step
    from pe_cli.framework import Program

    forms = [
        ("multiclass_nms", {"BBoxes": ["b"], "Scores": ["s"]}, {"Out": ["o"]}, _NMS),
        ("multiclass_nms2", {"BBoxes": ["b"], "Scores": ["s"]}, {"Out": ["o"], "Index": ["i"]}, _NMS),
        (
            "multiclass_nms3",
            {"BBoxes": ["b"], "Scores": ["s"]},
            {"Out": ["o"], "Index": ["i"], "NmsRoisNum": ["r"]},
            _NMS,
        ),
        ("matrix_nms", {"BBoxes": ["b"], "Scores": ["s"]}, {"Out": ["o"], "Index": ["i"], "RoisNum": ["r"]}, _NMS),
        ("locality_aware_nms", {"BBoxes": ["b"], "Scores": ["s"]}, {"Out": ["o"]}, _NMS),
        ("nms", {"Boxes": ["b"]}, {"KeepBoxesIdxs": ["o"]}, {"iou_threshold": 0.3}),
        (
            "distribute_fpn_proposals",
            {"FpnRois": ["b"]},
            {"MultiFpnRois": ["o", "i"], "RestoreIndex": ["r"]},
            {"min_level": 2, "max_level": 3, "refer_level": 2, "refer_scale": 2},
        ),
    ]
    for n, (op, inputs, outputs, attrs) in enumerate(forms):
        program = Program()
        block = program.global_block()
        for name in ("b", "s", "o", "i", "r"):
            block.create_var(name=name)
        block.append_op(op, inputs, outputs, attrs)
        step = OpStep(block.ops[0], CPUPlace())
        for j in range(4):
            if op == "nms":
                feeds = {"b": _boxes(f"st|{j}", (8,), 10.0)}
            elif op == "distribute_fpn_proposals":
                feeds = {"b": _boxes(f"st|{j}", (8,), 10.0)}
            else:
                feeds = {
                    "b": _boxes(f"st|{j}", (2, 9)),
                    "s": _u(f"st|s|{j}", (2, 3, 9), lo=0, hi=(0.1, 0.3, 0.9, 0.5)[j]),
                }
            values = Values(feeds, {"b": [[0, 3, 8]]} if op == "distribute_fpn_proposals" else {})
            key = f"step|{n}|{op}|{j}"
            try:
                run_step(step, values)
            except Exception as e:
                results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
                continue
            for name in ("o", "i", "r"):
                if name in values:
                    a = np.asarray(values[name])
                    results[f"{key}|{name}|{a.dtype.str}|{a.shape}"] = np.frombuffer(a.tobytes(), dtype=np.uint8)
                    lod = values.lods.get(name)
                    results[f"{key}|{name}|lod"] = np.frombuffer(repr(lod).encode(), dtype=np.uint8)


def main(out):
    results = {}
    for part in (_nms_ops, _retinanet, _plain_nms, _proposals, _detection_map, _steps):
        part(results)
    np.savez(out, **{f"r{i}": v for i, v in enumerate(results.values())}, keys=np.array(list(results)))
    print(f"{len(results)} results written to {out}")


if __name__ == "__main__":
    main(sys.argv[1])
