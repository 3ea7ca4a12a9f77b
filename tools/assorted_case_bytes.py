"""The results of the assorted ops left to issue 95 for tools/op_case_bytes.py's families ``norm_double_grad``
(instance_norm_grad_grad, batch_norm_grad_grad), ``data_norm`` (data_norm and its gradient), ``pyramid_hash``,
``rank_attention``, ``hashing`` (hash), ``dequant`` (lookup_table_dequant), ``merged_momentum``, ``numerics``
(check_numerics) and ``graph_sampling`` (weighted_sample_neighbors), called through their CPU kernels
(``OpDef.kernel``): float32/64 (and float16, ints where an op takes them), empty inputs, C-contiguous,
Fortran-ordered and strided inputs, each attribute's variants, LoDs, seeded draws, and the refusals of bad shapes
and values."""

import numpy as np

from matrix_case_bytes import _forms, _values


def _run(results, record, direct, op, key, ins, attrs=None, ctx=None):
    from pe_cli.ops import registry

    o = registry.get(op)
    full = dict(o.default_attrs(), **(attrs or {}))
    record(results, f"{op}|{key}", lambda: _listed(direct(o, ins, full, ctx() if callable(ctx) else ctx)))


def _listed(outs):
    """The outputs, a list slot's values each as its own (slot#i)."""
    flat = {}
    for slot, value in outs.items():
        if type(value) is list:
            flat.update({f"{slot}#{i}": v for i, v in enumerate(value)})
        else:
            flat[slot] = value
    return flat


def norm_double_grad(results, record, direct):
    for dt in ("float32", "float64"):
        for shape in ((2, 3, 4, 5), (3, 2, 6), (2, 3), (0, 3, 4)):
            n, c = shape[:2]
            x = _values(f"ndg|{dt}|{shape}|x", shape, dt)
            scale = np.abs(_values(f"ndg|{dt}|{c}|s", (c,), dt)) + 0.5
            for form, dy in _forms(f"ndg|{dt}|{shape}|dy", shape, dt).items():
                ddx = _values(f"ndg|{dt}|{shape}|ddx", shape, dt)
                dds, ddb = _values(f"ndg|{dt}|{c}|dds", (c,), dt), _values(f"ndg|{dt}|{c}|ddb", (c,), dt)
                for given in ("XSB", "X", "SB", "XS", "B"):
                    dd = {"DDX": ddx} if "X" in given else {}
                    dd.update({"DDScale": dds} if "S" in given else {}, **({"DDBias": ddb} if "B" in given else {}))
                    for with_scale in (True, False):
                        sc = {"Scale": scale} if with_scale else {}
                        key = f"{dt}|{shape}|{form}|{given}|{with_scale}"
                        if len(shape) > 2:
                            r = np.abs(_values(f"ndg|{key}|r", (n * c,), dt)) + 0.5
                            m = _values(f"ndg|{key}|m", (n * c,), dt)
                            ins = dict(dd, **sc, X=x, SavedMean=m, SavedVariance=r, DY=dy)
                            _run(results, record, direct, "instance_norm_grad_grad", key, ins)
                        for layout in ("NCHW", "NHWC"):
                            cc = shape[-1] if layout == "NHWC" and len(shape) > 2 else c
                            r = np.abs(_values(f"ndg|{key}|br", (cc,), dt)) + 0.5
                            m = _values(f"ndg|{key}|bm", (cc,), dt)
                            bd = {k: (v if v.shape != (c,) else _values(f"{k}|{cc}", (cc,), dt)) for k, v in dd.items()}
                            s = {"Scale": np.abs(_values(f"ndg|{cc}|bs", (cc,), dt)) + 0.5} if with_scale else {}
                            ins = dict(bd, **s, X=x, SavedMean=m, SavedVariance=r, DY=dy)
                            for mode in ("train", "is_test", "use_global_stats"):
                                attrs = {"data_layout": layout, "is_test": mode == "is_test"}
                                attrs["use_global_stats"] = mode == "use_global_stats"
                                k = f"{key}|{layout}|{mode}"
                                _run(results, record, direct, "batch_norm_grad_grad", k, ins, attrs)


def data_norm(results, record, direct):
    for dt in ("float32", "float64"):
        for sdt in dict.fromkeys([dt, "float32", "float64"]):
            for n, c in ((5, 4), (0, 4), (3, 6)):
                for form, x in _forms(f"dn|{dt}|{n}|{c}", (n, c), dt).items():
                    x = x.copy() if form == "c" else x
                    if form == "c" and n:
                        x[1, :2] = 0  # (a slot not shown, with slot_dim 2)
                    size = np.abs(_values(f"dn|{sdt}|{c}|n", (c,), sdt)) + 1
                    total = _values(f"dn|{sdt}|{c}|s", (c,), sdt)
                    square = np.abs(_values(f"dn|{sdt}|{c}|q", (c,), sdt)) + 1
                    w, b = _values(f"dn|{sdt}|{c}|w", (c,), sdt), _values(f"dn|{sdt}|{c}|b", (c,), sdt)
                    for slot_dim in (-1, 2):
                        for shift in (False, True):
                            attrs = {"slot_dim": slot_dim, "enable_scale_and_shift": shift, "epsilon": 1e-3}
                            ins = {"X": x, "BatchSize": size, "BatchSum": total, "BatchSquareSum": square}
                            if shift:
                                ins.update(scale_w=w, bias=b)
                            key = f"{dt}|{sdt}|{n}|{c}|{form}|{slot_dim}|{shift}"
                            _run(results, record, direct, "data_norm", key, ins, attrs)
                            means, scales = total / size, np.sqrt(size / square)
                            dy = _values(f"dn|{key}|dy", (n, c), dt)
                            gins = dict(ins, Means=means, Scales=scales, **{"Y@GRAD": dy})
                            _run(results, record, direct, "data_norm_grad", key, gins, attrs)


def pyramid_hash(results, record, direct):
    from pe_cli.kernels.context import KernelContext

    for wdt in ("float32", "float64"):
        for lod in ([[0, 3, 4, 9]], [[0, 1, 1]], [[0, 6]], [[0, 0]]):
            rows = lod[0][-1]
            ids = (np.abs(_values(f"ph|{lod}", (rows, 1), "int32")) % 50).astype(np.int32)
            for space, rand, emb in ((20, 2, 4), (7, 3, 6)):
                w = _values(f"ph|{wdt}|{space}|{rand}", (space + rand, 1), wdt)
                for layer in (2, 3, 5):
                    for training, drop, seed in ((0, 0.25, 0), (1, 0.0, 0), (1, 0.4, 7), (1, 1.0, 3)):
                        attrs = dict(num_emb=emb, space_len=space, rand_len=rand, pyramid_layer=layer)
                        attrs.update(is_training=training, drop_out_percent=drop, seed=seed, use_filter=False)
                        key = f"{wdt}|{lod}|{space}|{rand}|{layer}|{training}|{drop}|{seed}"

                        def ctx(lod=lod):
                            return KernelContext(lod={"X": lod})

                        ins = {"X": ids, "W": w}
                        _run(results, record, direct, "pyramid_hash", key, ins, attrs, ctx)
                        try:
                            out = direct(
                                _op("pyramid_hash"), ins, dict(_op("pyramid_hash").default_attrs(), **attrs), ctx()
                            )
                        except Exception:
                            continue
                        dout = _values(f"ph|{key}|d", out["Out"].shape, wdt)
                        gins = {"X": ids, "W": w, "DropPos": out["DropPos"], "Out@GRAD": dout}
                        _run(results, record, direct, "pyramid_hash_grad", key, gins, attrs, ctx)
    x = np.ones((3, 1), np.int32)
    _run(results, record, direct, "pyramid_hash", "nolod", {"X": x, "W": np.ones((6, 1))}, {}, None)
    bad = {"X": x, "W": np.ones((6, 1))}
    _run(
        results,
        record,
        direct,
        "pyramid_hash",
        "badlod",
        bad,
        {"num_emb": 2, "space_len": 4, "rand_len": 2},
        lambda: KernelContext(lod={"X": [[0, 2]]}),
    )


def _op(op):
    from pe_cli.ops import registry

    return registry.get(op)


def rank_attention(results, record, direct):
    for dt in ("float32", "float64"):
        for odt in ("int32", "int64"):
            for rank, n, c, p in ((3, 4, 2, 4), (1, 3, 3, 2), (2, 0, 2, 3), (2, 5, 1, 1)):
                rng = np.random.default_rng(rank * 100 + n)
                off = np.zeros((n, 1 + 2 * rank), odt)
                off[:, 0] = rng.integers(0, rank + 1, n)
                off[:, 1::2] = rng.integers(0, rank + 1, (n, rank))
                off[:, 2::2] = rng.integers(0, max(n, 1), (n, rank))
                param = _values(f"ra|{dt}|{rank}|{c}|{p}", (c * rank * rank, p), dt)
                for form, x in _forms(f"ra|{dt}|{n}|{c}", (n, c), dt).items():
                    key = f"{dt}|{odt}|{rank}|{n}|{c}|{p}|{form}"
                    ins = {"X": x, "RankOffset": off, "RankParam": param}
                    _run(results, record, direct, "rank_attention", key, ins, {"MaxRank": rank})
                    gins = dict(ins, **{"Out@GRAD": _values(f"ra|{key}|d", (n, p), dt)})
                    _run(results, record, direct, "rank_attention_grad", key, gins, {"MaxRank": rank})
                    if n:
                        far = off.copy()
                        far[0, 2] = n + 3
                        far[0, :2] = 1
                        _run(
                            results,
                            record,
                            direct,
                            "rank_attention",
                            key + "|far",
                            dict(ins, RankOffset=far),
                            {"MaxRank": rank},
                        )
                        _run(
                            results,
                            record,
                            direct,
                            "rank_attention_grad",
                            key + "|far",
                            dict(gins, RankOffset=far),
                            {"MaxRank": rank},
                        )
                    short = dict(ins, RankParam=param[1:])
                    _run(results, record, direct, "rank_attention", key + "|short", short, {"MaxRank": rank})
                    _run(
                        results,
                        record,
                        direct,
                        "rank_attention_grad",
                        key + "|short",
                        dict(gins, RankParam=param[1:]),
                        {"MaxRank": rank},
                    )


def hashing(results, record, direct):
    for dt in ("int32", "int64"):
        for shape in ((5, 1), (4, 3), (0, 2), (6,)):
            for form, x in _forms(f"h|{dt}|{shape}", shape, dt).items():
                for num_hash in (1, 3):
                    for mod in (100000, 7, -1, -5):
                        key = f"{dt}|{shape}|{form}|{num_hash}|{mod}"
                        _run(results, record, direct, "hash", key, {"X": x}, {"num_hash": num_hash, "mod_by": mod})


def dequant(results, record, direct):
    for rows, k in ((6, 3), (4, 1), (3, 0)):
        w = _values(f"dq|{rows}|{k}", (rows, 2 + k), "float32")
        w[:, 0], w[:, 1] = -np.abs(w[:, 0]), np.abs(w[:, 1])
        codes = np.random.default_rng(rows).integers(0, 256, (rows, 4 * k), dtype=np.uint8)
        w[:, 2:] = codes.view(np.float32).reshape(rows, k)
        for wform, ww in (("c", w), ("f", np.asfortranarray(w)), ("f64", w.astype(np.float64))):
            for idt in ("int64", "int32"):
                for shape in ((5, 1), (2, 3, 1), (0, 1)):
                    ids = (np.arange(int(np.prod(shape))) * 5 % rows).astype(idt).reshape(shape)
                    for pad in (-1, 1, rows - 1):
                        key = f"{rows}|{k}|{wform}|{idt}|{shape}|{pad}"
                        ins = {"W": ww, "Ids": ids}
                        _run(results, record, direct, "lookup_table_dequant", key, ins, {"padding_idx": pad})
            bad = np.array([[rows]], np.int64)
            _run(results, record, direct, "lookup_table_dequant", f"{rows}|{k}|{wform}|bad", {"W": ww, "Ids": bad})


def merged_momentum(results, record, direct):
    shapes = ((3, 4), (5,), (0, 2))
    for dt in ("float32", "float64", "float16"):
        for count in (1, 3):
            sh = shapes[:count]
            p = [_values(f"mm|{dt}|{s}|p", s, dt) for s in sh]
            g = [_values(f"mm|{dt}|{s}|g", s, dt) for s in sh]
            v = [_values(f"mm|{dt}|{s}|v", s, dt) for s in sh]
            master = [a.astype(np.float32) for a in p]
            for lrs in ("one", "each"):
                lr = [np.array([0.1 * (i + 1)], dt if dt != "float16" else "float32") for i in range(count)]
                lr = lr[:1] if lrs == "one" else lr
                for nesterov in (False, True):
                    for reg in ("none", "l2", "mixed"):
                        for rescale in (1.0, 0.5):
                            for multi in (False, True):
                                attrs = {"mu": 0.9, "use_nesterov": nesterov, "rescale_grad": rescale}
                                if reg == "l2":
                                    attrs.update(regularization_method=["l2_decay"] * count)
                                    attrs.update(regularization_coeff=[0.01] * count)
                                elif reg == "mixed":
                                    attrs.update(regularization_method=["l2_decay", ""] * 2)
                                    attrs.update(regularization_coeff=[0.02, 0.0] * 2)
                                ins = {"Param": p, "Grad": g, "Velocity": v, "LearningRate": lr}
                                if multi:
                                    attrs["multi_precision"] = True
                                    ins["MasterParam"] = master
                                key = f"{dt}|{count}|{lrs}|{nesterov}|{reg}|{rescale}|{multi}"
                                _run(results, record, direct, "merged_momentum", key, ins, attrs)


def numerics(results, record, direct):
    for dt in ("float32", "float64", "float16", "int32"):
        for shape in ((3, 4), (0,), (), (7,)):
            for form, x in _forms(f"cn|{dt}|{shape}", shape, dt).items():
                for special in ("", "nan", "inf", "allnan", "zero"):
                    y = x.copy()
                    if y.size and dt[0] == "f":
                        flat = y.reshape(-1)
                        if special == "nan":
                            flat[0] = np.nan
                        elif special == "inf":
                            flat[-1] = -np.inf
                        elif special == "allnan":
                            flat[:] = np.nan
                    if y.size and special == "zero":
                        y.reshape(-1)[0] = 0
                    for level in (0, 1, 3):
                        key = f"{dt}|{shape}|{form}|{special}|{level}"
                        attrs = {"check_nan_inf_level": level, "op_type": "mul", "var_name": "v" if level else ""}
                        _run(results, record, direct, "check_numerics", key, {"tensor": y}, attrs)


def graph_sampling(results, record, direct):
    from pe_cli.kernels.context import KernelContext

    row = np.array([10, 11, 12, 13, 14, 15, 20, 21, 30, 31])
    colptr = np.array([0, 6, 8, 10, 10])
    weight = np.array([1, 2, 3, 4, 0, 0, 1, 1, 9, 1], np.float32)
    for dt in ("int64", "int32"):
        graph = {"row": row.astype(dt), "colptr": colptr.astype(dt), "edge_weight": weight}
        for nodes in ([0, 1, 3], [2] * 20, [], [0, 4], [3, 3]):
            for k in (-1, 1, 3):
                for eids in (True, False):
                    ins = dict(graph, input_nodes=np.array(nodes, dt))
                    if eids:
                        ins["eids"] = np.arange(100, 110).astype(dt)
                    key = f"{dt}|{nodes}|{k}|{eids}"

                    def ctx():
                        return KernelContext(rng=np.random.default_rng(5))

                    attrs = {"sample_size": k, "return_eids": eids}
                    _run(results, record, direct, "weighted_sample_neighbors", key, ins, attrs, ctx)
