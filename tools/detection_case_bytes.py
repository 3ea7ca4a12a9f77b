"""The bytes the detection family's ops compute (detection_box, detection_roi, detection_yolo), with prelu,
maxout, the activations' second-order ops, conv3d(_transpose), unpool(3d) and their grad ops: each op case of
tests/ops/cases_<family>.py for those families (and cases_activation's of those ops) run through op_test's harness
(forward and the grad ops' analytic gradients), then each case's op called through its CPU kernel
(``OpDef.kernel``) on its own inputs, on its float inputs in the other float dtype, Fortran-ordered and strided,
and the second-order ops with each of their outputs asked for alone. Every result's dtype, shape and bytes (an
error's type and message) go to FILE (.npz), for tools/op_case_bytes.py's ``compare``.

    PYTHONPATH=/work/main python tools/detection_case_bytes.py /work/main --out a.npz
    PYTHONPATH=. python tools/detection_case_bytes.py . --out b.npz
    python tools/op_case_bytes.py compare a.npz b.npz
"""

import argparse
import importlib
import os
import sys

import numpy as np

FAMILIES = ("detection_box", "detection_roi", "detection_yolo", "convolution3d", "pooling_mask", "activation")
_ACTIVATION_OPS = ("prelu", "maxout", "elu", "leaky_relu", "relu", "sqrt", "square")


def _ours(case):
    """Whether the case is of the family's ops (cases_activation's: prelu, maxout and the second-order ops)."""
    return case.op in ("prelu", "maxout") or case.op.endswith("_grad_grad") or case.op.startswith(("prelu", "maxout"))


def _cases(family):
    cases = importlib.import_module(f"tests.ops.cases_{family}").CASES
    if family == "activation":
        return [c for c in cases if c.op.split("_grad")[0] in _ACTIVATION_OPS and _ours(c)]
    if family == "pooling_mask":
        return [c for c in cases if c.op.startswith("unpool")]
    return cases


class _Case:
    """A case of this script's own, called through the op's kernel alone (no reference, no gradient)."""

    def __init__(self, op, inputs, attrs=None):
        self.op, self.inputs, self.attrs, self.grad = op, inputs, attrs or {}, ()
        self.id = f"{op}|{sorted(self.attrs.items())}|{[np.shape(v) for v in inputs.values()]}"


def _extra_cases():
    """prelu's modes and layouts, maxout's axes, the second-order ops on each of their inputs, in float32."""
    rng = np.random.default_rng(5)

    def v(*shape, lo=-2.0):
        return rng.uniform(lo, 2.0, size=shape).astype("float32")

    cases = []
    for shape in ((2, 3, 4, 5), (2, 3), (0, 3, 2), (3, 4, 2, 2, 2)):
        cases.append(_Case("prelu", {"X": v(*shape), "Alpha": v(1)}, {"mode": "all"}))
        cases.append(_Case("prelu", {"X": v(*shape), "Alpha": v(shape[1])}, {"mode": "channel"}))
        cases.append(_Case("prelu", {"X": v(*shape), "Alpha": v(*shape[1:])}, {"mode": "element"}))
        cases.append(
            _Case("prelu", {"X": v(*shape), "Alpha": v(shape[-1])}, {"mode": "channel", "data_format": "NHWC"})
        )
        x = v(*shape)
        for alpha, mode in ((v(1), "all"), (v(shape[1]), "channel"), (v(*shape[1:]), "element")):
            cases.append(_Case("prelu_grad", {"X": x, "Alpha": alpha, "Out@GRAD": v(*shape)}, {"mode": mode}))
    for axis, groups, shape in (
        (1, 2, (2, 6, 3, 3)),
        (-1, 3, (2, 3, 3, 6)),
        (3, 1, (1, 2, 2, 4)),
        (1, 4, (0, 8, 2, 2)),
    ):
        attrs = {"axis": axis, "groups": groups}
        x = v(*shape)
        cases.append(_Case("maxout", {"X": x}, attrs))
        out_shape = list(shape)
        out_shape[axis % 4] //= groups
        out = x.reshape(shape[: axis % 4] + (shape[axis % 4] // groups, groups) + shape[axis % 4 + 1 :]).max(
            axis % 4 + 1
        )
        cases.append(_Case("maxout_grad", {"X": x, "Out": out, "Out@GRAD": v(*out_shape)}, attrs))
    for shape in ((3, 4), (2, 3, 4), (0, 2), ()):
        x, pos = v(*shape), v(*shape, lo=0.1)
        cases += [
            _Case("relu_grad_grad", {"Out": np.maximum(x, 0), "DDX": v(*shape)}),
            _Case("leaky_relu_grad_grad", {"Out": x, "DDX": v(*shape)}, {"alpha": 0.1}),
            _Case("elu_grad_grad", {"X": x, "DOut": v(*shape), "DDX": v(*shape)}, {"alpha": 0.7}),
            _Case("sqrt_grad_grad", {"Out": pos, "DX": v(*shape), "DDX": v(*shape)}),
            _Case("square_grad_grad", {"X": x, "DOut": v(*shape), "DDX": v(*shape)}),
        ]
    _conv3d_cases(cases, v)
    _unpool_cases(cases, v)
    _yolo_cases(cases, v)
    _roi_cases(cases, v)
    return cases


def _roi_cases(cases, v):
    """The RoI ops on counts given as int32 and int64, counts that do not add up, two images and no counts, no rois,
    ROIs of another dtype than X; their grad ops called alone."""
    x = v(2, 3, 6, 7, lo=0.0)
    rois = np.array([[0, 0, 3, 3], [1, 2, 5, 6], [0.5, 0.5, 2.5, 4.0]], np.float32)
    attrs = {"pooled_height": 2, "pooled_width": 2, "spatial_scale": 1.0}
    for op in ("roi_pool", "roi_align", "prroi_pool"):
        slot = "BatchRoINums" if op == "prroi_pool" else "RoisNum"
        for counts in (np.array([1, 2], np.int32), np.array([2, 1], np.int64), np.array([1, 1], np.int64)):
            cases.append(_Case(op, {"X": x, "ROIs": rois, slot: counts}, attrs))
        cases.append(_Case(op, {"X": x, "ROIs": rois}, attrs))
        cases.append(_Case(op, {"X": x[:1], "ROIs": rois[:0]}, attrs))
        cases.append(_Case(op, {"X": x[:1], "ROIs": rois.astype("float64")}, attrs))
        grad_ins = {"X": x, "ROIs": rois, slot: np.array([1, 2], np.int32), "Out@GRAD": v(3, 3, 2, 2)}
        if op == "roi_pool":
            grad_ins["Argmax"] = np.array(np.arange(36) % 42, np.int64).reshape(3, 3, 2, 2)
        cases.append(_Case(op + "_grad", grad_ins, attrs))
    ps = {"pooled_height": 2, "pooled_width": 2, "spatial_scale": 0.5, "output_channels": 2}
    xp = v(1, 8, 6, 7, lo=0.0)
    cases.append(_Case("psroi_pool", {"X": xp, "ROIs": rois}, ps))
    cases.append(_Case("psroi_pool_grad", {"X": xp, "ROIs": rois, "Out@GRAD": v(3, 2, 2, 2)}, ps))
    quads = np.array([[0, 0, 4, 0, 4, 3, 0, 3], [1, 1, 5, 2, 4, 5, 0, 4]], np.float32)
    pt = {"transformed_height": 3, "transformed_width": 4, "spatial_scale": 1.0}
    cases.append(_Case("roi_perspective_transform", {"X": x[:1], "ROIs": quads}, pt))
    cases.append(_Case("roi_perspective_transform_grad", {"X": x[:1], "ROIs": quads, "Out@GRAD": v(2, 3, 3, 4)}, pt))


def _yolo_cases(cases, v):
    """yolo_box on grids with H != W in both meanings, with iou_aware; yolov3_loss and its grad op."""
    attrs = {"anchors": [10, 13, 16, 30], "class_num": 2, "conf_thresh": 0.3, "downsample_ratio": 8}
    size = np.array([[40, 60], [33, 20]], np.int32)
    for paddle2 in (False, True):
        for iou in (False, True):
            x = v(2, 2 * (7 + iou), 3, 5)
            case = _Case("yolo_box", {"X": x, "ImgSize": size}, dict(attrs, iou_aware=iou, clip_bbox=not iou))
            case.paddle2 = paddle2
            cases.append(case)
    attrs = {"anchors": [10, 13, 16, 30, 33, 23], "anchor_mask": [0, 1], "class_num": 3, "downsample_ratio": 8}
    gt = np.array([[[0.5, 0.5, 0.3, 0.4], [0.2, 0.3, 0.1, 0.1]], [[0.6, 0.4, 0.2, 0.5], [0, 0, 0, 0]]], np.float32)
    label = np.array([[1, 2], [0, 1]], np.int32)
    ins = {"X": v(2, 2 * 8, 4, 4), "GTBox": gt, "GTLabel": label}
    cases.append(_Case("yolov3_loss", ins, attrs))
    cases.append(_Case("yolov3_loss", dict(ins, GTScore=v(2, 2, lo=0.1)), dict(attrs, use_label_smooth=False)))
    cases.append(_Case("yolov3_loss", dict(ins, X=v(2, 16, 4, 5)), attrs))
    grad_ins = dict(ins, ObjectnessMask=(v(2, 2, 4, 4) > 0).astype("float32"), GTMatchMask=label - 1)
    grad_ins["Loss@GRAD"] = v(2)
    cases.append(_Case("yolov3_loss_grad", grad_ins, attrs))


def _unpool_cases(cases, v):
    """unpool and unpool3d and their grad ops: int and float64 values, int32 indices, output_size, an index outside
    its plane, an empty batch."""
    idx = np.array([[[[0, 3], [9, 14]], [[1, 2], [8, 15]]]], np.int64)  # [1, 2, 2, 2] into 4 x 4 planes
    attrs = {"ksize": [2, 2], "strides": [2, 2]}
    for x in (v(1, 2, 2, 2), v(1, 2, 2, 2).astype("int64"), v(1, 2, 2, 2).astype("float64")):
        for i in (idx, idx.astype(np.int32)):
            cases.append(_Case("unpool", {"X": x, "Indices": i}, attrs))
            cases.append(_Case("unpool_grad", {"X": x, "Indices": i, "Out@GRAD": v(1, 2, 4, 4)}, attrs))
    cases.append(_Case("unpool", {"X": v(1, 2, 2, 2), "Indices": idx}, dict(attrs, output_size=[5, 5])))
    cases.append(_Case("unpool", {"X": v(1, 2, 2, 2), "Indices": idx + 2}, attrs))
    cases.append(_Case("unpool_grad", {"X": v(1, 2, 2, 2), "Indices": idx - 1, "Out@GRAD": v(1, 2, 4, 4)}, attrs))
    cases.append(_Case("unpool", {"X": v(0, 2, 2, 2), "Indices": idx[:0]}, attrs))
    idx3 = np.arange(8, dtype=np.int64).reshape(1, 1, 2, 2, 2) * 3
    attrs3 = {"ksize": [2, 2, 2], "strides": [2, 2, 2]}
    cases.append(_Case("unpool3d", {"X": v(1, 1, 2, 2, 2), "Indices": idx3}, attrs3))
    cases.append(_Case("unpool3d_grad", {"X": v(1, 1, 2, 2, 2), "Indices": idx3, "Out@GRAD": v(1, 1, 4, 4, 4)}, attrs3))


def _conv3d_cases(cases, v):
    """conv3d and conv3d_transpose and their grad ops: mixed dtypes, an empty batch, strides with output_size,
    groups; the grad ops with each gradient asked for alone (``_direct``)."""
    x, w, w64 = v(2, 2, 3, 4, 3), v(3, 2, 2, 2, 2), v(3, 2, 2, 2, 2).astype("float64")
    for filt in (w, w64):
        cases.append(_Case("conv3d", {"Input": x, "Filter": filt}))
        cases.append(_Case("conv3d_grad", {"Input": x, "Filter": filt, "Output@GRAD": v(2, 3, 2, 3, 2)}))
    cases.append(_Case("conv3d", {"Input": v(0, 2, 3, 4, 3), "Filter": w}))
    attrs = {"strides": [2, 1, 1], "paddings": [1, 0, 1], "dilations": [1, 2, 1], "groups": 1}
    cases.append(_Case("conv3d", {"Input": x, "Filter": w}, attrs))
    cases.append(_Case("conv3d_grad", {"Input": x, "Filter": w, "Output@GRAD": v(2, 3, 2, 2, 4)}, attrs))
    xt, wt = v(2, 2, 2, 3, 2), v(2, 3, 2, 2, 2)
    for filt in (wt, wt.astype("float64")):
        cases.append(_Case("conv3d_transpose", {"Input": xt, "Filter": filt}))
        cases.append(_Case("conv3d_transpose_grad", {"Input": xt, "Filter": filt, "Output@GRAD": v(2, 3, 3, 4, 3)}))
    attrs = {"strides": [2, 2, 2], "output_size": [6, 6, 6], "groups": 2}
    xg, wg = v(1, 2, 2, 2, 2), v(2, 1, 3, 3, 3)
    cases.append(_Case("conv3d_transpose", {"Input": xg, "Filter": wg}, attrs))
    cases.append(_Case("conv3d_transpose_grad", {"Input": xg, "Filter": wg, "Output@GRAD": v(1, 2, 6, 6, 6)}, attrs))


def _split(ins):
    """(arrays, LoD per slot) of a case's inputs (a LoDTensor's array and offsets)."""
    from pe_cli.framework.lod_tensor import LoDTensor

    arrays, lods = {}, {}
    for slot, v in ins.items():
        if isinstance(v, LoDTensor):
            arrays[slot] = np.asarray(v)
            if v.lod():
                lods[slot] = [list(level) for level in v.lod()]
        elif isinstance(v, list):
            arrays[slot] = [np.asarray(a) for a in v]
        else:
            arrays[slot] = None if v is None else np.asarray(v)
    return arrays, lods


def _variants(ins):
    """name -> inputs: as given, floats in the other float dtype, Fortran-ordered and strided float inputs."""
    out = {"given": ins}
    floats = {s for s, v in ins.items() if isinstance(v, np.ndarray) and v.dtype.kind == "f"}
    if not floats:
        return out
    other = {np.dtype("float32"): "float64", np.dtype("float64"): "float32"}
    out["other_dtype"] = {s: v.astype(other.get(v.dtype, v.dtype)) if s in floats else v for s, v in ins.items()}
    out["fortran"] = {s: np.asfortranarray(v) if s in floats else v for s, v in ins.items()}

    def strided(v):
        if v.ndim == 0:
            return v
        wide = np.empty(v.shape[:-1] + (v.shape[-1] * 2,), v.dtype)
        wide[..., ::2] = v
        return wide[..., ::2]

    out["strided"] = {s: strided(v) if s in floats else v for s, v in ins.items()}
    return out


def _direct(results, record, case, key):
    from pe_cli.kernels.context import KernelContext, takes_context
    from pe_cli.ops import registry

    opdef = registry.get(case.op)
    attrs = dict(opdef.default_attrs(), **case.attrs)
    kernel = opdef.kernel("cpu")
    ins, lods = _split(case.inputs)
    for name, given in _variants(ins).items():
        slots = [o.name for o in opdef.outputs]
        asks = [None] + ([(s,) for s in slots] if case.op.endswith("_grad") and len(slots) > 1 else [])
        for ask in asks:

            def run(given=given, ask=ask):
                paddle2 = getattr(case, "paddle2", False)
                ctx = KernelContext(lod=dict(lods), outputs=None if ask is None else set(ask), paddle2=paddle2)
                args = (dict(given), dict(attrs))
                return kernel(*args, ctx) if takes_context(kernel) else kernel(*args)

            record(results, f"{key}|direct|{name}|{ask}", run)


def dump(root, out):
    sys.path[:0] = [os.path.join(root, "tests"), root, os.path.dirname(os.path.abspath(__file__))]
    op_case_bytes = importlib.import_module("op_case_bytes")
    op_test = importlib.import_module("op_test")
    generator = importlib.import_module("pe_cli.framework.default_generator")
    record, results = op_case_bytes._record, {}
    with np.errstate(all="ignore"):
        for family in FAMILIES:
            for i, case in enumerate(_cases(family)):
                key = f"detect|{family}|{i}|{case.id}"
                generator.manual_seed(1000 + i)
                record(results, key + "|forward", lambda: op_test.run_forward(case))
                if case.grad:
                    record(results, key + "|grad", lambda: op_test.analytic_grads(case)[0])
                _direct(results, record, case, key)
        for i, case in enumerate(_extra_cases()):
            _direct(results, record, case, f"detect|extra|{i}|{case.id}")
    np.savez(out, **{f"r{i}": v for i, v in enumerate(results.values())}, keys=np.array(list(results)))
    print(f"{len(results)} results -> {out}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    dump(os.path.abspath(args.root), args.out)


if __name__ == "__main__":
    main()
