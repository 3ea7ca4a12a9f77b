"""tools/op_case_bytes.py's dump of the elementwise and row losses through their CPU kernels: for
loss_classification, label_smooth, kldiv_loss, teacher_student_sigmoid_loss, log_loss, bce_loss, nll_loss,
hinge_loss, modified_huber_loss and their gradients on float16/32/64 values of several shapes (empty, 0-D, a
large array where the op takes any shape), each attribute's forms (reductions, ignore_index, class weights,
PriorDist, epsilon) and refusals (X outside [0, 1], a class out of range). ``record(results, key, fn)`` and
``direct(opdef, ins, attrs, ctx)`` are op_case_bytes.py's."""

import numpy as np

_DTYPES = ("float16", "float32", "float64")
_ANY = [(), (0,), (7,), (3, 5), (2, 3, 4), ((1 << 16) + 3,)]
_PAIRS = [(0, 1), (1, 1), (8, 1), (300, 1)]


def _u(rng, shape, dtype, lo=-3.0, hi=3.0):
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def _run(results, record, direct, key, fwd, ins, attrs, grad=None, gins=None):
    record(results, key, lambda: direct(fwd, ins, attrs, None))
    if grad is not None:
        record(results, key + "|grad", lambda: direct(grad, gins, attrs, None))


def _label_smooth(results, record, direct, rng, registry):
    fwd, grad = registry.get("label_smooth"), registry.get("label_smooth_grad")
    for dtype in _DTYPES:
        for shape in _ANY[1:]:
            x = _u(rng, shape, dtype, 0, 1)
            for eps in (0.0, 0.1, 1.5):
                attrs = {"epsilon": eps}
                d = _u(rng, shape, dtype)
                key = f"label_smooth|{dtype}|{shape}|{eps}"
                _run(results, record, direct, key, fwd, {"X": x}, attrs, grad, {"Out@GRAD": d})
                prior = _u(rng, (1, shape[-1]), dtype, 0, 1)
                record(results, key + "|prior", lambda: direct(fwd, {"X": x, "PriorDist": prior}, attrs, None))
                other = prior.astype("float64" if dtype != "float64" else "float32")
                record(results, key + "|prior_other", lambda: direct(fwd, {"X": x, "PriorDist": other}, attrs, None))


def _kldiv(results, record, direct, rng, registry):
    fwd, grad = registry.get("kldiv_loss"), registry.get("kldiv_loss_grad")
    for dtype in _DTYPES:
        for shape in [(0, 3), (7,), (4, 5), (2, 3, 4), (512, 130)]:
            x = _u(rng, shape, dtype, -4, 0)
            t = _u(rng, shape, dtype, -0.2, 1)
            for red in ("none", "batchmean", "mean", "sum"):
                attrs = {"reduction": red}
                d = _u(rng, shape if red == "none" else (1,), dtype)
                ins = {"X": x, "Target": t}
                key = f"kldiv|{dtype}|{shape}|{red}"
                _run(results, record, direct, key, fwd, ins, attrs, grad, {**ins, "Loss@GRAD": d})


def _two_class(results, record, direct, rng, registry):
    """teacher_student_sigmoid_loss, log_loss, bce_loss, hinge_loss and modified_huber_loss on [N, 1]
    values (bce_loss on any shape), with their gradients."""
    ts, ts_grad = registry.get("teacher_student_sigmoid_loss"), registry.get("teacher_student_sigmoid_loss_grad")
    log, log_grad = registry.get("log_loss"), registry.get("log_loss_grad")
    hinge, hinge_grad = registry.get("hinge_loss"), registry.get("hinge_loss_grad")
    mhl, mhl_grad = registry.get("modified_huber_loss"), registry.get("modified_huber_loss_grad")
    for dtype in _DTYPES:
        for n, _ in _PAIRS:
            shape = (n, 1)
            x, d = _u(rng, shape, dtype, -20, 20), _u(rng, shape, dtype)
            label = rng.choice([-2.0, -1.0, 0.3, 1.7], size=shape).astype(dtype)
            attrs = {"soft_max_up_bound": 15.0, "soft_max_lower_bound": -15.0}
            ins = {"X": x, "Label": label}
            _run(results, record, direct, f"ts|{dtype}|{n}", ts, ins, attrs, ts_grad, {**ins, "Y@GRAD": d})
            p, y01 = _u(rng, shape, dtype, 0, 1), rng.integers(0, 2, size=shape).astype(dtype)
            for eps in (1e-4, 0.0):
                ins = {"Predicted": p, "Labels": y01}
                key = f"log_loss|{dtype}|{n}|{eps}"
                _run(results, record, direct, key, log, ins, {"epsilon": eps}, log_grad, {**ins, "Loss@GRAD": d})
            ins = {"Logits": x, "Labels": y01}
            _run(results, record, direct, f"hinge|{dtype}|{n}", hinge, ins, {}, hinge_grad, {**ins, "Loss@GRAD": d})
            xs = _u(rng, shape, dtype)
            try:
                v = np.asarray(direct(mhl, {"X": xs, "Y": y01}, {}, None)["IntermediateVal"])
            except Exception:
                v = xs
            gins = {"Y": y01, "IntermediateVal": v, "Out@GRAD": d}
            _run(results, record, direct, f"mhl|{dtype}|{n}", mhl, {"X": xs, "Y": y01}, {}, mhl_grad, gins)
    _bce(results, record, direct, rng, registry)


def _bce(results, record, direct, rng, registry):
    fwd, grad = registry.get("bce_loss"), registry.get("bce_loss_grad")
    for dtype in _DTYPES:
        for shape in _ANY:
            x, label = _u(rng, shape, dtype, 0, 1), _u(rng, shape, dtype, 0, 1)
            if x.size > 2:
                x.reshape(-1)[:2] = (0, 1)
            ins = {"X": x, "Label": label}
            d = _u(rng, shape, dtype)
            key = f"bce|{dtype}|{shape}"
            _run(results, record, direct, key, fwd, ins, {}, grad, {**ins, "Out@GRAD": d})
            if x.size:
                bad = x.copy()
                bad.reshape(-1)[-1] = 1.5
                record(results, key + "|bad", lambda: direct(fwd, {"X": bad, "Label": label}, {}, None))


def _nll(results, record, direct, rng, registry):
    fwd, grad = registry.get("nll_loss"), registry.get("nll_loss_grad")
    for dtype in ("float32", "float64"):
        for shape in [(6, 4), (1, 3), (0, 3), (2, 3, 4, 5)]:
            x = _u(rng, shape, dtype, -3, 0)
            lshape = (shape[0],) + shape[2:]
            for kind in ("plain", "ignored", "weighted", "bad", "all_ignored"):
                label = rng.integers(0, shape[1], size=lshape).astype(np.int64)
                if kind == "ignored" and label.size:
                    label.reshape(-1)[::2] = 1
                if kind == "all_ignored":
                    label[...] = 1
                if kind == "bad" and label.size:
                    label.reshape(-1)[-1] = shape[1]
                ins = {"X": x, "Label": label}
                if kind == "weighted":
                    ins["Weight"] = _u(rng, (shape[1],), dtype, 0, 2)
                for red in ("mean", "sum", "none"):
                    attrs = {"ignore_index": 1 if "ignored" in kind else -100, "reduction": red}
                    key = f"nll|{dtype}|{shape}|{kind}|{red}"
                    record(results, key, lambda: direct(fwd, ins, attrs, None))
                    try:
                        total = np.asarray(direct(fwd, ins, attrs, None)["Total_weight"])
                    except Exception:
                        total = np.ones(1, dtype)
                    d = _u(rng, lshape if red == "none" else (1,), dtype)
                    gins = {**ins, "Total_weight": total, "Out@GRAD": d}
                    record(results, key + "|grad", lambda: direct(grad, gins, attrs, None))


def loss_classification(results, record, direct, rng):
    from pe_cli.ops import registry

    _label_smooth(results, record, direct, rng, registry)
    _kldiv(results, record, direct, rng, registry)
    _two_class(results, record, direct, rng, registry)
    _nll(results, record, direct, rng, registry)


def _pair_grads(results, record, direct, key, op, ins, attrs, outs_to_grads):
    """The forward of ``op`` on ``ins``, then its grad op on the inputs it reads, its outputs and a gradient of
    each output (``outs_to_grads``: output slot -> its @GRAD's values from that output's array)."""
    record(results, key, lambda: direct(op, ins, attrs, None))
    try:
        outs = {k: np.asarray(v) for k, v in direct(op, ins, attrs, None).items()}
    except Exception:
        return
    from pe_cli.ops import registry

    grad = registry.get(op.type + "_grad")
    given = dict(ins, **outs, **{f"{k}@GRAD": f(outs[k]) for k, f in outs_to_grads.items()})
    gins = {s.name: given[s.name] for s in grad.inputs if s.name in given}
    record(results, key + "|grad", lambda: direct(grad, gins, attrs, None))


def loss_regression(results, record, direct, rng):
    """huber_loss, smooth_l1_loss (weighted or not, sigma) and center_loss (need_update or not, a label out of
    range) and their gradients on float16/32/64 values of several shapes."""
    from pe_cli.ops import registry

    huber, sl1, center = (registry.get(t) for t in ("huber_loss", "smooth_l1_loss", "center_loss"))
    for dtype in _DTYPES:
        rand = lambda like: _u(rng, np.shape(like), dtype)  # noqa: E731
        for shape in [(0, 1), (5, 1), (4, 3), (2, 3, 4), (300, 20)]:
            x, y = _u(rng, shape, dtype), _u(rng, shape, dtype)
            for delta in (1.0, 0.3):
                key = f"huber|{dtype}|{shape}|{delta}"
                _pair_grads(results, record, direct, key, huber, {"X": x, "Y": y}, {"delta": delta}, {"Out": rand})
            for sigma in (1.0, 3.0):
                for weighted in (False, True):
                    ins = {"X": x, "Y": y}
                    if weighted:
                        ins.update(InsideWeight=_u(rng, shape, dtype, 0, 2), OutsideWeight=_u(rng, shape, dtype, 0, 2))
                    key = f"smooth_l1|{dtype}|{shape}|{sigma}|{weighted}"
                    _pair_grads(results, record, direct, key, sl1, ins, {"sigma": sigma}, {"Out": rand})
        for n, d, clusters in [(6, 4, 3), (1, 2, 5), (40, 8, 10)]:
            x, centers = _u(rng, (n, d), dtype), _u(rng, (clusters, d), dtype)
            for kind in ("plain", "bad"):
                label = rng.integers(0, clusters, (n, 1)).astype(np.int64)
                if kind == "bad":
                    label[-1] = clusters
                for update in (False, True):
                    ins = {"X": x, "Label": label, "Centers": centers, "CenterUpdateRate": np.array([0.3], dtype)}
                    attrs = {"cluster_num": clusters, "need_update": update}
                    key = f"center|{dtype}|{n},{d},{clusters}|{kind}|{update}"
                    _pair_grads(results, record, direct, key, center, ins, attrs, {"Loss": rand})


def loss_ranking(results, record, direct, rng):
    """margin_rank_loss (margins), rank_loss ([N] and [N, 1]), bpr_loss (a label out of range, 3-D X) and their
    gradients on float16/32/64 values."""
    from pe_cli.ops import registry

    margin, rank, bpr = (registry.get(t) for t in ("margin_rank_loss", "rank_loss", "bpr_loss"))
    for dtype in _DTYPES:
        rand = lambda like: _u(rng, np.shape(like), dtype)  # noqa: E731
        for n in (0, 1, 7, 300):
            shape = (n, 1)
            x1, x2 = _u(rng, shape, dtype), _u(rng, shape, dtype)
            label = rng.choice([-1.0, 1.0], size=shape).astype(dtype)
            for m in (0.0, 0.5):
                ins = {"X1": x1, "X2": x2, "Label": label}
                key = f"margin_rank|{dtype}|{n}|{m}"
                _pair_grads(results, record, direct, key, margin, ins, {"margin": m}, {"Out": rand})
            for flat in (False, True):
                s = (n,) if flat else shape
                ins = {"Label": _u(rng, s, dtype, 0, 1), "Left": _u(rng, s, dtype), "Right": _u(rng, s, dtype)}
                _pair_grads(results, record, direct, f"rank|{dtype}|{n}|{flat}", rank, ins, {}, {"Out": rand})
        for shape in [(5, 4), (1, 2), (2, 3, 6), (64, 50), (3, 1)]:
            x = _u(rng, shape, dtype)
            for kind in ("plain", "bad"):
                label = rng.integers(0, shape[-1], shape[:-1] + (1,)).astype(np.int64)
                if kind == "bad":
                    label.reshape(-1)[-1] = shape[-1]
                key = f"bpr|{dtype}|{shape}|{kind}"
                _pair_grads(results, record, direct, key, bpr, {"X": x, "Label": label}, {}, {"Y": rand})


def similarity(results, record, direct, rng):
    """cos_sim and squared_l2_distance (Y of X's rows or one row, 3-D X, Y of another width: the refusal) and
    dist (p 0, +-inf, 1, 2, 3.5; broadcast; equal X and Y: the zero distance) with their gradients on
    float16/32/64 values, dist in a Fluid program's context and in a Paddle 2.x program's (paddle2, zero_dim)."""
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    cos, sq, dist = (registry.get(t) for t in ("cos_sim", "squared_l2_distance", "dist"))
    for dtype in _DTYPES:
        for xs, ys in [
            ((4, 3), (4, 3)),
            ((4, 3), (1, 3)),
            ((2, 3, 4), (2, 12)),
            ((300, 16), (300, 16)),
            ((3, 2), (3, 5)),
        ]:
            x, y = _u(rng, xs, dtype), _u(rng, ys, dtype)
            for op in (cos, sq):
                key = f"{op.type}|{dtype}|{xs}|{ys}"
                record(results, key, lambda: direct(op, {"X": x, "Y": y}, {}, None))
                try:
                    outs = {k: np.asarray(v) for k, v in direct(op, {"X": x, "Y": y}, {}, None).items()}
                except Exception:
                    continue
                grad = registry.get(op.type + "_grad")
                given = dict(X=x, Y=y, **outs, **{"Out@GRAD": _u(rng, outs["Out"].shape, dtype)})
                gins = {s.name: given[s.name] for s in grad.inputs if s.name in given}
                record(results, key + "|grad", lambda: direct(grad, gins, {}, None))
        dgrad = registry.get("dist_grad")
        for xs, ys in [((4, 3), (4, 3)), ((4, 3), (3,)), ((2, 1, 3), (4, 1)), ((0, 3), (0, 3)), ((5,), (5,))]:
            x = _u(rng, xs, dtype)
            for same in (False, True):
                y = x.copy() if same and xs == ys else _u(rng, ys, dtype)
                for p in (0.0, float("inf"), float("-inf"), 1.0, 2.0, 3.5):
                    for told in ("fluid", "paddle2"):
                        ctx = KernelContext(paddle2=told == "paddle2", zero_dim=told == "paddle2")
                        key = f"dist|{dtype}|{xs}|{ys}|{same}|{p}|{told}"
                        record(results, key, lambda: direct(dist, {"X": x, "Y": y}, {"p": p}, ctx))
                        try:
                            out = np.asarray(direct(dist, {"X": x, "Y": y}, {"p": p}, ctx)["Out"])
                        except Exception:
                            continue
                        gins = {"X": x, "Y": y, "Out": out, "Out@GRAD": np.ones(out.shape, dtype)}
                        record(results, key + "|grad", lambda: direct(dgrad, gins, {"p": p}, ctx))
