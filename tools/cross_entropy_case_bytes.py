"""tools/op_case_bytes.py's dump of cross_entropy, cross_entropy2, sigmoid_cross_entropy_with_logits and their
gradient ops (part of the ``loss_classification`` family) through their CPU kernels: X of float16/32/64 of
2-D, 3-D, 1-D and empty shapes; hard labels int64 and int32 with and without the trailing 1, some ignored
(ignore_index), one out of range or negative (numpy's refusal or wrap as today), soft labels; cross_entropy2's
gradient from MatchX and XShape and from X; sigmoid cross-entropy plain and normalized, some labels ignored,
Label broadcast. ``record(results, key, fn)`` and ``direct(opdef, ins, attrs, ctx)`` are op_case_bytes.py's."""

_SHAPES = [(8, 10), (3, 4, 5), (10,), (0, 6), (2, 1)]


def _labels(rng, shape, kind):
    if kind == "soft":
        return rng.uniform(0, 1, size=shape)
    lshape = shape[:-1] if kind == "no_last" else shape[:-1] + (1,)
    label = rng.integers(0, shape[-1], size=lshape).astype("int32" if kind == "int32" else "int64")
    if label.size and kind == "ignored":
        label.reshape(-1)[::3] = -100
    if label.size and kind in ("bad", "negative"):
        label.reshape(-1)[-1] = shape[-1] + 2 if kind == "bad" else -1
    return label


def _cross_entropy(results, record, direct, rng, registry):
    ce, ce_grad = registry.get("cross_entropy"), registry.get("cross_entropy_grad")
    ce2, ce2_grad = registry.get("cross_entropy2"), registry.get("cross_entropy_grad2")
    for dtype in ("float16", "float32", "float64"):
        for shape in _SHAPES:
            for kind in ("int64", "int32", "no_last", "ignored", "bad", "negative", "soft"):
                x = rng.uniform(0.01, 1, size=shape).astype(dtype)
                label = _labels(rng, shape, kind)
                label = label.astype(dtype) if kind == "soft" else label
                soft = kind == "soft"
                attrs = {"soft_label": soft, "ignore_index": -100}
                key = f"cross_entropy|{dtype}|{shape}|{kind}"
                ins = {"X": x, "Label": label}
                record(results, key, lambda: direct(ce, ins, attrs, None))
                dy = rng.uniform(-1, 1, size=shape[:-1] + (1,)).astype(dtype)
                record(results, key + "|grad", lambda: direct(ce_grad, {**ins, "Y@GRAD": dy}, attrs, None))
                if soft:
                    continue
                attrs2 = {"ignore_index": -100}
                record(results, key + "|2", lambda: direct(ce2, ins, attrs2, None))
                record(results, key + "|2grad_x", lambda: direct(ce2_grad, {**ins, "Y@GRAD": dy}, attrs2, None))
                try:
                    outs = direct(ce2, ins, attrs2, None)
                except Exception:
                    continue
                gins = {"Label": label, "MatchX": outs["MatchX"], "XShape": outs["XShape"], "Y@GRAD": dy}
                record(results, key + "|2grad_match", lambda: direct(ce2_grad, gins, attrs2, None))


def _sigmoid_ce(results, record, direct, rng, registry):
    fwd, grad = (
        registry.get("sigmoid_cross_entropy_with_logits"),
        registry.get("sigmoid_cross_entropy_with_logits_grad"),
    )
    for dtype in ("float16", "float32", "float64"):
        for shape in _SHAPES:
            for normalize in (False, True):
                for kind in ("plain", "ignored", "all_ignored", "broadcast"):
                    x = rng.uniform(-5, 5, size=shape).astype(dtype)
                    label = rng.uniform(0, 1, size=shape[-1:] if kind == "broadcast" else shape).astype(dtype)
                    if kind == "ignored" and label.size:
                        label.reshape(-1)[::2] = -100
                    if kind == "all_ignored":
                        label[...] = -100
                    attrs = {"ignore_index": -100, "normalize": normalize}
                    key = f"sigmoid_ce|{dtype}|{shape}|{normalize}|{kind}"
                    ins = {"X": x, "Label": label}
                    record(results, key, lambda: direct(fwd, ins, attrs, None))
                    dout = rng.uniform(-1, 1, size=shape).astype(dtype)
                    record(results, key + "|grad", lambda: direct(grad, {**ins, "Out@GRAD": dout}, attrs, None))


def cross_entropy(results, record, direct, rng):
    from pe_cli.ops import registry

    _cross_entropy(results, record, direct, rng, registry)
    _sigmoid_ce(results, record, direct, rng, registry)
