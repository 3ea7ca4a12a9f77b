"""The bytes the remaining convolution-like ops compute (conv_shift, deformable_conv(_v1), tree_conv, sequence_conv,
spp, temporal_shift and their grad ops): each op case of theirs in tests/ops/cases_*.py run through op_test's harness
(forward and the grad ops' analytic gradients), then each case's op called through its CPU kernel (``OpDef.kernel``)
and its executor step (``OpDef.step_kernel``, twice: the second on the Meta kept) on its own inputs, on its float
inputs in the other float dtype, Fortran-ordered and strided, and the grad ops with each of their outputs asked for
alone (only the asked outputs recorded); then this script's own cases (dtypes, empty batches, attributes, refusals).
Every result's dtype, shape and bytes (an error's type and message) go to FILE (.npz), for tools/op_case_bytes.py's
``compare``.

    PYTHONPATH=/work/main python tools/conv_family_case_bytes.py /work/main --out a.npz
    PYTHONPATH=. python tools/conv_family_case_bytes.py . --out b.npz
    python tools/op_case_bytes.py compare a.npz b.npz
"""

import argparse
import importlib
import os
import sys

import numpy as np

_OPS = ("conv_shift", "deformable_conv", "deformable_conv_v1", "tree_conv", "sequence_conv", "spp", "temporal_shift")
_FILES = ("convolution", "convolution_deformable", "tree_conv", "sequence_conv", "pooling", "video", "paddle2_attrs")


def _cases(family):
    cases = importlib.import_module(f"tests.ops.cases_{family}").CASES
    return [c for c in cases if c.op.split("_grad")[0] in _OPS]


class _Case:
    """A case of this script's own, called through the op's kernel alone (no reference, no gradient)."""

    def __init__(self, op, inputs, attrs=None, lod=None):
        self.op, self.inputs, self.attrs, self.grad, self.lod = op, inputs, attrs or {}, (), lod or {}
        arrays = [(np.shape(v), np.asarray(v).dtype.str) for v in inputs.values()]
        self.id = f"{op}|{sorted(self.attrs.items())}|{arrays}|{self.lod}"


def _rng_values():
    rng = np.random.default_rng(17)

    def v(*shape, lo=-2.0, dtype="float32"):
        return rng.uniform(lo, 2.0, size=shape).astype(dtype)

    return rng, v


def _conv_shift_cases(cases, v):
    for dtype in ("float32", "float64", "int32"):
        for m, n, b in ((7, 5, 3), (5, 5, 2), (4, 1, 2), (6, 3, 0), (9, 3, 1)):
            x, y, d = v(b, m, dtype=dtype), v(b, n, dtype=dtype), v(b, m, dtype=dtype)
            cases.append(_Case("conv_shift", {"X": x, "Y": y}))
            cases.append(_Case("conv_shift_grad", {"X": x, "Y": y, "Out@GRAD": d}))
    x, y = v(3, 6), v(3, 3, dtype="float64")
    cases.append(_Case("conv_shift", {"X": x, "Y": y}))
    cases.append(_Case("conv_shift_grad", {"X": x, "Y": y, "Out@GRAD": v(3, 6, dtype="float64")}))


def _deformable_cases(cases, v):
    base = {"strides": [1, 1], "paddings": [1, 1], "dilations": [1, 1], "groups": 1, "deformable_groups": 1}
    forms = [
        (base, (2, 4, 5, 6), (4, 4, 3, 3)),
        (
            dict(base, strides=[2, 1], paddings=[0, 1], dilations=[1, 2], groups=2, deformable_groups=2),
            (1, 4, 6, 5),
            (2, 2, 2, 3),
        ),
        (dict(base, paddings=[0, 0], deformable_groups=4), (2, 4, 3, 3), (3, 4, 1, 1)),
        (base, (0, 2, 4, 4), (2, 2, 3, 3)),
    ]
    for attrs, xs, ws in forms:
        n, c, h, w = xs
        m, _, kh, kw = ws
        dg = attrs["deformable_groups"]
        ho = (h + 2 * attrs["paddings"][0] - (attrs["dilations"][0] * (kh - 1) + 1)) // attrs["strides"][0] + 1
        wo = (w + 2 * attrs["paddings"][1] - (attrs["dilations"][1] * (kw - 1) + 1)) // attrs["strides"][1] + 1
        for dtype in ("float32", "float64"):
            x, filt = v(*xs, dtype=dtype), v(*ws, dtype=dtype)
            off = v(n, 2 * dg * kh * kw, ho, wo, lo=-2.5, dtype=dtype) * 1.3
            mask = v(n, dg * kh * kw, ho, wo, lo=0.0, dtype=dtype)
            dout = v(n, m, ho, wo, dtype=dtype)
            ins = {"Input": x, "Offset": off, "Mask": mask, "Filter": filt}
            ins1 = {"Input": x, "Offset": off, "Filter": filt}
            cases.append(_Case("deformable_conv", ins, attrs))
            cases.append(_Case("deformable_conv_v1", ins1, attrs))
            for grad in ("deformable_conv_grad", "deformable_conv_grad_deformable"):
                cases.append(_Case(grad, dict(ins, **{"Output@GRAD": dout}), attrs))
            for grad in ("deformable_conv_v1_grad", "deformable_conv_v1_grad_deformable"):
                cases.append(_Case(grad, dict(ins1, **{"Output@GRAD": dout}), attrs))
    # mixed dtypes: a float64 Filter, a float32 Offset
    x, filt, off = v(1, 2, 4, 4), v(2, 2, 3, 3, dtype="float64"), v(1, 18, 4, 4)
    cases.append(_Case("deformable_conv_v1", {"Input": x, "Offset": off, "Filter": filt}, base))
    dout = v(1, 2, 4, 4, dtype="float64")
    cases.append(
        _Case("deformable_conv_v1_grad", {"Input": x, "Offset": off, "Filter": filt, "Output@GRAD": dout}, base)
    )
    # a wrong Offset: the run-time check's refusal
    cases.append(_Case("deformable_conv_v1", {"Input": x, "Offset": off[:, :16], "Filter": filt}, base))


def _tree_cases(cases, v):
    edges = np.array(
        [[[1, 2], [1, 3], [1, 4], [2, 5], [3, 6]], [[1, 2], [2, 3], [0, 0], [0, 0], [0, 0]]], dtype=np.int32
    )
    for dtype in ("float32", "float64"):
        for depth in (1, 2, 3):
            x, filt = v(2, 7, 3, dtype=dtype), v(3, 3, 2, 4, dtype=dtype)
            for e in (edges, edges.astype(np.int64)):
                cases.append(_Case("tree_conv", {"NodesVector": x, "EdgeSet": e, "Filter": filt}, {"max_depth": depth}))
                ins = {"NodesVector": x, "EdgeSet": e, "Filter": filt, "Out@GRAD": v(2, 7, 2, 4, dtype=dtype)}
                cases.append(_Case("tree_conv_grad", ins, {"max_depth": depth}))
    x, filt = v(2, 7, 3), v(3, 3, 2, 4, dtype="float64")
    cases.append(_Case("tree_conv", {"NodesVector": x, "EdgeSet": edges, "Filter": filt}))
    ins = {"NodesVector": x, "EdgeSet": edges, "Filter": filt, "Out@GRAD": v(2, 7, 2, 4)}
    cases.append(_Case("tree_conv_grad", ins))
    cases.append(_Case("tree_conv", {"NodesVector": x[:, :4], "EdgeSet": edges, "Filter": filt}))  # too many nodes
    bad = edges.copy()
    bad[0, 1] = [1, 9]
    cases.append(_Case("tree_conv", {"NodesVector": x, "EdgeSet": bad, "Filter": filt}))
    cases.append(_Case("tree_conv", {"NodesVector": x[:0], "EdgeSet": edges[:0], "Filter": filt}))


def _sequence_conv_cases(cases, v):
    for dtype in ("float32", "float64"):
        for lengths, d, length, start in (
            ([4, 1, 3], 3, 3, -1),
            ([2, 5], 2, 4, 0),
            ([3, 3], 1, 1, 2),
            ([0, 3], 2, 2, -3),
        ):
            rows = sum(lengths)
            offs = [list(np.cumsum([0] + lengths))]
            x, filt = v(rows, d, dtype=dtype), v(length * d, 4, dtype=dtype)
            up, down = max(0, -start), max(0, start + length - 1)
            pad = v(up + down, d, dtype=dtype)
            attrs = {"contextLength": length, "contextStart": start}
            dout = v(rows, 4, dtype=dtype)
            for trainable in (False, True):
                a = dict(attrs, paddingTrainable=trainable)
                cases.append(_Case("sequence_conv", {"X": x, "Filter": filt}, a, {"X": offs}))
                cases.append(_Case("sequence_conv", {"X": x, "Filter": filt, "PaddingData": pad}, a, {"X": offs}))
                cases.append(_Case("sequence_conv_grad", {"X": x, "Filter": filt, "Out@GRAD": dout}, a, {"X": offs}))
                ins = {"X": x, "Filter": filt, "PaddingData": pad, "Out@GRAD": dout}
                cases.append(_Case("sequence_conv_grad", ins, a, {"X": offs}))
    x, filt = v(5, 2), v(6, 3, dtype="float64")
    attrs = {"contextLength": 3, "contextStart": -1}
    cases.append(_Case("sequence_conv", {"X": x, "Filter": filt}, attrs, {"X": [[0, 2, 5]]}))
    ins = {"X": x, "Filter": filt, "Out@GRAD": v(5, 3)}
    cases.append(_Case("sequence_conv_grad", ins, attrs, {"X": [[0, 2, 5]]}))
    cases.append(_Case("sequence_conv", {"X": x, "Filter": filt}, attrs))  # no LoD
    cases.append(_Case("sequence_conv", {"X": x, "Filter": filt}, attrs, {"X": [[0, 2, 4]]}))  # LoD short of X


def _spp_cases(cases, v):
    for dtype in ("float32", "float64", "int32", "float16"):
        for shape in ((2, 3, 8, 8), (1, 2, 5, 7), (2, 1, 2, 3), (0, 2, 4, 4)):
            for height in (1, 2, 3):
                for kind in ("max", "avg"):
                    x = (v(*shape) * (10 if dtype == "int32" else 1)).astype(dtype)
                    attrs = {"pyramid_height": height, "pooling_type": kind}
                    cases.append(_Case("spp", {"X": x}, attrs))
                    bins = sum(4**p for p in range(height))
                    out = _run("spp", {"X": x}, attrs)
                    if out is None:
                        continue
                    dout = v(shape[0], shape[1] * bins).astype(dtype)
                    cases.append(_Case("spp_grad", {"X": x, "Out": out["Out"], "Out@GRAD": dout}, attrs))


def _temporal_shift_cases(cases, v):
    for dtype in ("float32", "float64", "int32"):
        for shape, seg in (((6, 4, 2, 2), 3), ((4, 7, 1, 3), 2), ((3, 8, 2, 1), 1), ((0, 4, 2, 2), 2)):
            for ratio in (0.0, 0.25, 0.3, 0.5):
                for fmt in ("NCHW", "NHWC"):
                    x = (v(*shape) * (10 if dtype == "int32" else 1)).astype(dtype)
                    attrs = {"seg_num": seg, "shift_ratio": ratio, "data_format": fmt}
                    cases.append(_Case("temporal_shift", {"X": x}, attrs))
                    cases.append(_Case("temporal_shift_grad", {"Out@GRAD": x}, attrs))
    cases.append(_Case("temporal_shift", {"X": v(5, 4, 2, 2)}, {"seg_num": 2}))  # 5 frames: the run-time refusal


def _run(op, ins, attrs):
    from pe_cli.ops import registry

    opdef = registry.get(op)
    try:
        return opdef.kernel("cpu")(dict(ins), dict(opdef.default_attrs(), **attrs))
    except Exception:
        return None


def _extra_cases():
    _, v = _rng_values()
    cases = []
    _conv_shift_cases(cases, v)
    _deformable_cases(cases, v)
    _tree_cases(cases, v)
    _sequence_conv_cases(cases, v)
    _spp_cases(cases, v)
    _temporal_shift_cases(cases, v)
    return cases


def _split(ins):
    """(arrays, LoD per slot) of a case's inputs (a LoDTensor's array and offsets)."""
    from pe_cli.framework.lod_tensor import LoDTensor

    arrays, lods = {}, {}
    for slot, v in ins.items():
        if isinstance(v, LoDTensor):
            arrays[slot] = np.asarray(v)
            if v.lod():
                lods[slot] = [list(level) for level in v.lod()]
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


def _direct(results, record, case, key, lods=None):
    from pe_cli.kernels.context import KernelContext, takes_context
    from pe_cli.ops import registry

    opdef = registry.get(case.op)
    attrs = dict(opdef.default_attrs(), **case.attrs)
    ins, found = _split(case.inputs)
    lods = dict(found, **(lods or {}))
    kernels = {"kernel": opdef.kernel("cpu"), "step": opdef.step_kernel("cpu")}
    for name, given in _variants(ins).items():
        slots = [o.name for o in opdef.outputs]
        asks = [None] + ([(s,) for s in slots] if "_grad" in case.op and len(slots) > 1 else [])
        for ask in asks:
            for how, kernel in kernels.items():

                def run(given=given, ask=ask, kernel=kernel):
                    ctx = KernelContext(lod=dict(lods), outputs=None if ask is None else set(ask))
                    args = (dict(given), dict(attrs))
                    outs = kernel(*args, ctx) if takes_context(kernel) else kernel(*args)
                    return outs if ask is None else {s: v for s, v in outs.items() if s in ask}

                for turn in (0, 1) if how == "step" else (0,):
                    record(results, f"{key}|{how}{turn}|{name}|{ask}", run)


def dump(root, out):
    sys.path[:0] = [os.path.join(root, "tests"), root, os.path.dirname(os.path.abspath(__file__))]
    op_case_bytes = importlib.import_module("op_case_bytes")
    op_test = importlib.import_module("op_test")
    generator = importlib.import_module("pe_cli.framework.default_generator")
    record, results = op_case_bytes._record, {}
    with np.errstate(all="ignore"):
        for family in _FILES:
            for i, case in enumerate(_cases(family)):
                key = f"convf|{family}|{i}|{case.id}"
                generator.manual_seed(1000 + i)
                record(results, key + "|forward", lambda: op_test.run_forward(case))
                if case.grad:
                    record(results, key + "|grad", lambda: op_test.analytic_grads(case)[0])
                _direct(results, record, case, key)
        seen = {}
        for case in _extra_cases():  # (cases of one id, inputs of other values: numbered in their order)
            seen[case.id] = seen.get(case.id, -1) + 1
            _direct(results, record, case, f"convf|extra|{case.id}|{seen[case.id]}", case.lod)
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
