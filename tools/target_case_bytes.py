"""The bytes the detection-target, SSD-matching, focal-loss, margin-loss and TDM ops compute (cases_detection_target,
cases_detection_match, cases_detection_loss, cases_loss_margin, cases_tdm): each op case run through op_test's harness
(forward and the grad ops' analytic gradients), then each case's op, and this script's own cases, called through its
CPU kernel (``OpDef.kernel``) with a seeded Generator on its own inputs, its float inputs in the other float dtype,
Fortran-ordered and strided. Every result's dtype, shape and bytes (an error's type and message), and the LoD the
kernel hands back, go to FILE (.npz), for tools/op_case_bytes.py's ``compare``.

    PYTHONPATH=/work/main python tools/target_case_bytes.py /work/main --out a.npz
    PYTHONPATH=. python tools/target_case_bytes.py . --out b.npz
    python tools/op_case_bytes.py compare a.npz b.npz
"""

import argparse
import importlib
import os
import sys

import numpy as np

FAMILIES = ("detection_target", "detection_match", "detection_loss", "loss_margin", "tdm")


class _Case:
    """A case of this script's own, called through the op's kernel alone (no reference, no gradient)."""

    def __init__(self, op, inputs, attrs=None):
        self.op, self.inputs, self.attrs, self.grad = op, inputs, attrs or {}, ()
        self.id = f"{op}|{sorted(self.attrs.items())}|{[np.shape(v) for v in inputs.values()]}"


def _lod(a, lod):
    from pe_cli.framework.lod_tensor import LoDTensor

    return LoDTensor(a, lod)


def _focal_margin_cases(cases, rng):
    label = np.array([[1], [0], [3], [-1], [2], [3]], np.int32)
    for gamma, alpha in ((2.0, 0.25), (0.0, 0.5), (1.5, 0.9)):
        for dtype in ("float32", "float64"):
            x = rng.normal(size=(6, 3)).astype(dtype)
            for fg in (np.array([4], np.int32), np.array([0], np.int32)):
                attrs = {"gamma": gamma, "alpha": alpha}
                cases.append(_Case("sigmoid_focal_loss", {"X": x, "Label": label, "FgNum": fg}, attrs))
                ins = {"X": x, "Label": label, "FgNum": fg, "Out@GRAD": rng.normal(size=(6, 3)).astype(dtype)}
                cases.append(_Case("sigmoid_focal_loss_grad", ins, attrs))
    x0 = np.zeros((0, 3), np.float32)
    cases.append(_Case("sigmoid_focal_loss", {"X": x0, "Label": label[:0], "FgNum": np.array([2], np.int32)}))
    big = rng.normal(size=(5, 4)) * 40  # (saturated sigmoids)
    cases.append(_Case("sigmoid_focal_loss", {"X": big, "Label": label[:5], "FgNum": np.array([2], np.int32)}))
    lab = np.array([[1], [0], [4], [1], [2]])
    for dtype in ("float32", "float64"):
        logits = rng.uniform(-0.95, 0.95, (5, 6)).astype(dtype)
        for m1, m2, m3, s in ((1.0, 0.5, 0.0, 64.0), (1.0, 0.0, 0.35, 4.0), (1.35, 0.25, 0.1, 6.0), (1, 0, 0, 1)):
            attrs = {"margin1": m1, "margin2": m2, "margin3": m3, "scale": s, "return_softmax": True}
            for lb in (lab, lab.astype(np.int32)):
                cases.append(_Case("margin_cross_entropy", {"Logits": logits, "Label": lb}, attrs))
                soft = rng.uniform(0, 1, logits.shape).astype(dtype)
                dloss = rng.normal(size=(5, 1)).astype(dtype)
                ins = {"Logits": logits, "Label": lb, "Softmax": soft, "Loss@GRAD": dloss}
                cases.append(_Case("margin_cross_entropy_grad", ins, attrs))
    cases.append(_Case("margin_cross_entropy", {"Logits": np.zeros((0, 4)), "Label": np.zeros((0, 1), np.int64)}))
    cases.append(_Case("margin_cross_entropy", {"Logits": rng.uniform(-1, 1, (2, 3)), "Label": np.array([[1], [3]])}))
    bad = {"Logits": rng.uniform(-1, 1, (2, 3)), "Label": np.array([[1], [-1]]), "Softmax": np.ones((2, 3))}
    cases.append(_Case("margin_cross_entropy_grad", dict(bad, **{"Loss@GRAD": np.ones((2, 1))})))
    labels = np.array([20, 5, 5, 13, 2, 20])
    for dtype in ("int64", "int32"):
        for attrs in (
            {"num_classes": 30, "num_samples": 8},
            {"num_classes": 30, "num_samples": 4},
            {"num_classes": 30, "num_samples": 12, "fix_seed": True, "seed": 11},
            {"num_classes": 21, "num_samples": 21},
        ):
            cases.append(_Case("class_center_sample", {"Label": labels.astype(dtype)}, attrs))
    cases.append(_Case("class_center_sample", {"Label": np.zeros(0, np.int64)}, {"num_classes": 5, "num_samples": 3}))
    cases.append(_Case("class_center_sample", {"Label": labels}, {"num_classes": 10, "num_samples": 3}))
    cases.append(_Case("class_center_sample", {"Label": labels}, {"num_classes": 30, "num_samples": 31}))


def _tdm_cases(cases, rng):
    tdm = importlib.import_module("tests.ops.cases_tdm")
    tree = np.array(tdm._TREE, np.int32)
    for dtype in ("int32", "int64"):
        for x in (tdm._X, tdm._X.astype(np.int32), tdm._X[0], tdm._X[:0]):
            for n in (1, 2):
                cases.append(_Case("tdm_child", {"X": x, "TreeInfo": tree}, {"child_nums": n, "dtype": dtype}))
    cases.append(_Case("tdm_child", {"X": tdm._X, "TreeInfo": tree.astype(np.int64)}, {"child_nums": 2}))
    cases.append(_Case("tdm_child", {"X": tdm._X + 30, "TreeInfo": tree}, {"child_nums": 2}))
    wide = np.concatenate([tree, np.ones((tree.shape[0], 2), np.int32)], axis=1)
    cases.append(_Case("tdm_child", {"X": tdm._X, "TreeInfo": wide}, {"child_nums": 2}))
    base = {"X": tdm._ITEMS, "Travel": tdm._TRAVEL, "Layer": tdm._LAYER}
    for negatives in ([0, 1, 2, 3], [1, 3, 6, 11], [0, 0, 0, 0]):
        for positive in (True, False):
            for seed, dtype in ((0, "int32"), (5, "int64")):
                attrs = {
                    "neg_samples_num_list": negatives,
                    "layer_offset_lod": tdm._OFFSETS,
                    "output_positive": positive,
                    "seed": seed,
                    "dtype": dtype,
                }
                cases.append(_Case("tdm_sampler", base, attrs))
    attrs = {"neg_samples_num_list": [1, 1, 1, 1], "layer_offset_lod": tdm._OFFSETS}
    cases.append(_Case("tdm_sampler", dict(base, X=np.array([12, 3, 0], np.int32)), attrs))
    cases.append(_Case("tdm_sampler", dict(base, X=tdm._ITEMS[:0]), attrs))
    cases.append(_Case("tdm_sampler", dict(base, X=np.array([[14]])), attrs))
    cases.append(_Case("tdm_sampler", base, dict(attrs, neg_samples_num_list=[2, 1, 1, 1])))


def _match_cases(cases, rng):
    dist = rng.uniform(0, 1, (7, 5)) * (rng.uniform(0, 1, (7, 5)) > 0.3)
    for d in (dist, dist.astype(np.float32)):
        for attrs in ({}, {"match_type": "per_prediction", "dist_threshold": 0.3}):
            cases.append(_Case("bipartite_match", {"DistMat": d}, attrs))
            for lod in ([[0, 3, 3, 7]], [[0, 7]], [[0, 0]]):
                cases.append(_Case("bipartite_match", {"DistMat": _lod(d[: lod[0][-1]], lod)}, attrs))
    cases.append(_Case("bipartite_match", {"DistMat": np.zeros((0, 4))}))
    for dtype in ("float64", "float32", "int64"):
        x = _lod((rng.normal(size=(5, 4, 3)) * 4).astype(dtype), [[0, 2, 5]])
        match = np.array([[0, -1, 1, 1, -1, 0], [2, 0, -1, 1, -1, -1]], np.int32)
        neg = _lod(np.array([[1], [4], [2], [5]], np.int32), [[0, 2, 4]])
        cases.append(_Case("target_assign", {"X": x, "MatchIndices": match}, {"mismatch_value": 7}))
        cases.append(_Case("target_assign", {"X": x, "MatchIndices": match, "NegIndices": neg}, {"mismatch_value": -1}))
        cases.append(_Case("target_assign", {"X": x, "MatchIndices": match[:, :0]}))
    x = _lod(rng.normal(size=(5, 4, 3)), [[0, 2, 5]])
    cases.append(_Case("target_assign", {"X": x, "MatchIndices": np.array([[0, 3], [2, 0]], np.int32)}))
    cases.append(_Case("target_assign", {"X": np.asarray(x), "MatchIndices": np.array([[0, 1]], np.int32)}))
    m = np.array([[0, -1, -1, 1, -1, -1, -1, -1], [-1, -1, 0, -1, -1, -1, -1, -1], [-1] * 8], np.int32)
    for dtype in ("float64", "float32"):
        cls, loc, dist = (rng.uniform(0, 2, (3, 8)).astype(dtype) for _ in range(3))
        for attrs in (
            {"neg_pos_ratio": 2.0, "neg_dist_threshold": 0.6},
            {"neg_pos_ratio": 0.5, "neg_dist_threshold": 0.9},
            {"mining_type": "hard_example", "sample_size": 3},
            {"mining_type": "hard_example", "sample_size": 20},
        ):
            ins = {"ClsLoss": cls, "MatchIndices": m, "MatchDist": dist / 2}
            cases.append(_Case("mine_hard_examples", ins, attrs))
            cases.append(_Case("mine_hard_examples", dict(ins, LocLoss=loc), attrs))
    ins = {"ClsLoss": np.zeros((0, 8)), "MatchIndices": m[:0], "MatchDist": np.zeros((0, 8))}
    cases.append(_Case("mine_hard_examples", ins))


def _target_cases(cases, rng):
    tgt = importlib.import_module("tests.ops.cases_detection_target")
    for case in tgt.CASES:
        if case.op in ("rpn_target_assign", "generate_proposal_labels"):
            attrs = dict(case.attrs, use_random=True)
            cases.append(_Case(case.op, case.inputs, attrs))
            if case.op == "generate_proposal_labels":
                cases.append(_Case(case.op, case.inputs, dict(attrs, batch_size_per_im=3, fg_fraction=0.34)))
            else:
                cases.append(_Case(case.op, case.inputs, dict(attrs, rpn_batch_size_per_im=5)))
    ins = next(c.inputs for c in tgt.CASES if c.op == "generate_mask_labels")
    labels = _lod(np.array([[0], [0], [0], [1], [0], [0]], np.int32), [[0, 4, 6]])
    cases.append(_Case("generate_mask_labels", dict(ins, LabelsInt32=labels), {"num_classes": 3, "resolution": 5}))
    cases.append(_Case("generate_mask_labels", ins, {"num_classes": 4, "resolution": 14}))


def _extra_cases():
    rng = np.random.default_rng(95)
    cases = []
    _focal_margin_cases(cases, rng)
    _tdm_cases(cases, rng)
    _match_cases(cases, rng)
    _target_cases(cases, rng)
    return cases


def _direct(results, record, case, key, variants, split):
    from pe_cli.kernels.context import KernelContext, takes_context
    from pe_cli.ops import registry

    opdef = registry.get(case.op)
    attrs = dict(opdef.default_attrs(), **case.attrs)
    kernel = opdef.kernel("cpu")
    ins, lods = split(case.inputs)
    for name, given in variants(ins).items():

        def run(given=given):
            ctx = KernelContext(rng=np.random.default_rng(17), lod=dict(lods))
            args = (dict(given), dict(attrs))
            outs = dict(kernel(*args, ctx) if takes_context(kernel) else kernel(*args))
            for slot, lod in sorted((ctx.out_lod or {}).items()):
                outs[f"{slot}@LOD"] = np.array(repr([list(map(int, level)) for level in lod]).encode())
            return outs

        record(results, f"{key}|direct|{name}", run)


def dump(root, out):
    sys.path[:0] = [os.path.join(root, "tests"), root, os.path.dirname(os.path.abspath(__file__))]
    op_case_bytes = importlib.import_module("op_case_bytes")
    detection = importlib.import_module("detection_case_bytes")
    op_test = importlib.import_module("op_test")
    generator = importlib.import_module("pe_cli.framework.default_generator")
    record, results = op_case_bytes._record, {}
    with np.errstate(all="ignore"):
        for family in FAMILIES:
            for i, case in enumerate(importlib.import_module(f"tests.ops.cases_{family}").CASES):
                key = f"target|{family}|{i}|{case.id}"
                generator.manual_seed(1000 + i)
                record(results, key + "|forward", lambda: op_test.run_forward(case))
                if case.grad:
                    record(results, key + "|grad", lambda: op_test.analytic_grads(case)[0])
                _direct(results, record, case, key, detection._variants, detection._split)
        for i, case in enumerate(_extra_cases()):
            _direct(results, record, case, f"target|extra|{i}|{case.id}", detection._variants, detection._split)
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
