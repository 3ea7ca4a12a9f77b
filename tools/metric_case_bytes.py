"""The metric ops' results for tools/op_case_bytes.py's ``metric`` family: accuracy, auc, mean_iou,
positive_negative_pair and precision_recall called through their CPU kernels (``OpDef.kernel``) over dtypes, batch
sizes (empty ones too), k, thresholds and sliding windows, states given or not, Fluid's [1] results and Paddle 2.x's
0-D ones (``zero_dim``), and the values and shapes they refuse."""

import zlib

import numpy as np


def _rng(key):
    return np.random.default_rng(zlib.crc32(key.encode()))


def _run(results, record, direct, op, key, ins, attrs=None, zero_dim=False):
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    o = registry.get(op)
    full = dict(o.default_attrs(), **(attrs or {}))
    record(results, f"metric|{op}|{key}|{zero_dim}", lambda: direct(o, ins, full, KernelContext(zero_dim=zero_dim)))


def _accuracy(results, record, direct):
    for n in (6, 1, 0):
        for k in (1, 3):
            for ldt in ("int64", "int32"):
                r = _rng(f"acc|{n}|{k}|{ldt}")
                idx = r.integers(0, 4, size=(n, k)).astype("int64")
                ins = {"Out": r.uniform(size=(n, k)), "Indices": idx, "Label": r.integers(0, 4, (n, 1)).astype(ldt)}
                for zd in (False, True):
                    _run(results, record, direct, "accuracy", f"{n}|{k}|{ldt}", ins, zero_dim=zd)


def _auc(results, record, direct):
    for n in (8, 0):
        for cols in (1, 2, 3):
            for dt in ("float32", "float64"):
                for thresholds, steps in ((4095, 1), (15, 0), (15, 3), (7, 2)):
                    r = _rng(f"auc|{n}|{cols}|{dt}|{thresholds}|{steps}")
                    size = thresholds + 1
                    for length in dict.fromkeys([(steps + 1) * size + 1 if steps else size, size, 2 * size + 1]):
                        stat = r.integers(0, 5, size=(1, length)).astype("int64")
                        ins = {
                            "Predict": r.uniform(size=(n, cols)).astype(dt),
                            "Label": r.integers(0, 2, size=(n, 1)).astype("int64"),
                            "StatPos": stat,
                            "StatNeg": stat[:, ::-1].copy(),
                        }
                        attrs = {"num_thresholds": thresholds, "slide_steps": steps}
                        for zd in (False, True):
                            key = f"{n}|{cols}|{dt}|{thresholds}|{steps}|{length}"
                            _run(results, record, direct, "auc", key, ins, attrs, zero_dim=zd)
    bad = {"Predict": np.array([[0.5, 1.5]]), "Label": np.array([[1]]), "StatPos": np.zeros((1, 16), "int64")}
    bad["StatNeg"] = bad["StatPos"]
    _run(results, record, direct, "auc", "range", bad, {"num_thresholds": 15, "slide_steps": 0})
    _run(results, record, direct, "auc", "rank", dict(bad, Predict=np.zeros(3)), {"num_thresholds": 15})


def _mean_iou(results, record, direct):
    for n in (3, 1):
        for shape in ((2, 5), (0,), (7,)):
            for dt in ("int32", "int64"):
                r = _rng(f"iou|{n}|{shape}|{dt}")
                ins = {
                    "Predictions": r.integers(0, n, size=shape).astype(dt),
                    "Labels": r.integers(0, n, shape).astype(dt),
                }
                _run(results, record, direct, "mean_iou", f"{n}|{shape}|{dt}", ins, {"num_classes": n})
                more = dict(
                    ins,
                    InWrongs=[r.integers(0, 3, n).astype("int32")] * 2,
                    InCorrects=[r.integers(0, 3, n).astype("int32")],
                    InMeanIou=[np.array([0.25], "float32")],
                )
                _run(results, record, direct, "mean_iou", f"{n}|{shape}|{dt}|in", more, {"num_classes": n})
    bad = {"Predictions": np.array([0, 5]), "Labels": np.array([0, 1])}
    _run(results, record, direct, "mean_iou", "bad", bad, {"num_classes": 3})


def _pairs(results, record, direct):
    for dt in ("float32", "float64"):
        for n in (9, 0):
            for column in (0, -1, 1):
                r = _rng(f"pnp|{dt}|{n}|{column}")
                score = np.round(r.uniform(size=(n, 2)) * 4).astype(dt)
                ins = {
                    "Score": score,
                    "Label": r.integers(0, 3, (n, 1)).astype(dt),
                    "QueryID": r.integers(0, 3, (n, 1)).astype("int64"),
                }
                _run(results, record, direct, "positive_negative_pair", f"{dt}|{n}|{column}", ins, {"column": column})
                more = dict(ins, Weight=r.uniform(size=(n, 1)).astype(dt))
                more.update({f"Accumulate{k}Pair": np.array([1.5], dt) for k in ("Positive", "Negative", "Neutral")})
                _run(
                    results, record, direct, "positive_negative_pair", f"{dt}|{n}|{column}|w", more, {"column": column}
                )


def _precision_recall(results, record, direct):
    for dt in ("float32", "float64"):
        for n in (7, 0):
            for classes in (3, 1):
                r = _rng(f"pr|{dt}|{n}|{classes}")
                ins = {
                    "MaxProbs": r.uniform(size=(n, 1)).astype(dt),
                    "Indices": r.integers(0, classes, (n, 1)).astype("int32"),
                    "Labels": r.integers(0, classes, (n, 1)).astype("int32"),
                }
                attrs = {"class_number": classes}
                _run(results, record, direct, "precision_recall", f"{dt}|{n}|{classes}", ins, attrs)
                more = dict(ins, Weights=r.uniform(size=(n, 1)).astype(dt), StatesInfo=r.uniform(size=(classes, 4)))
                _run(results, record, direct, "precision_recall", f"{dt}|{n}|{classes}|w", more, attrs)
    bad = {"MaxProbs": np.ones((2, 1)), "Indices": np.array([[0], [4]]), "Labels": np.array([[0], [1]])}
    _run(results, record, direct, "precision_recall", "bad", bad, {"class_number": 3})


def metric(results, record, direct):
    _accuracy(results, record, direct)
    _auc(results, record, direct)
    _mean_iou(results, record, direct)
    _pairs(results, record, direct)
    _precision_recall(results, record, direct)
