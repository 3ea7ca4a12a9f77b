"""The remaining LoD and sequence ops' results, to compare two trees bit for bit beside tools/op_case_bytes.py's op
cases: lod_reset, sequence_concat, sequence_slice, sequence_enumerate, sequence_scatter, row_conv, sequence_unpad,
sequence_mask, sequence_erase, im2sequence, chunk_eval, edit_distance, filter_by_instag, the fused sequence ops,
max_sequence_len, shrink_rnn_memory, reorder_lod_tensor_by_rank, rnn_memory_helper (rank tables made by lod_rank_table)
and their grad ops called
through their CPU kernels (``OpDef.kernel``) with a LoD in the call's context, over dtypes, shapes (strided ones too),
empty sequences, attributes and refusals; and row_conv, sequence_concat, sequence_erase as executor steps on two LoDs.
Beside each output's bytes its shape and dtype, and the LoD the kernel set; a refusal's type and message.

    PYTHONPATH=/work/main python tools/lod_ops_case_bytes.py a.npz
    PYTHONPATH=. python tools/lod_ops_case_bytes.py b.npz
    python tools/op_case_bytes.py compare a.npz b.npz
"""

import sys
import zlib

import numpy as np


def _values(key, shape, dtype, low=-3, high=3):
    rng = np.random.default_rng(zlib.crc32(key.encode()))
    return (rng.uniform(low, high, size=shape) * (5 if dtype[0] == "i" else 1)).astype(dtype)


def _ids(key, shape, top, dtype="int64"):
    rng = np.random.default_rng(zlib.crc32(key.encode()))
    return rng.integers(0, top, size=shape).astype(dtype)


def _save(results, key, outs, ctx):
    for name, value in sorted(outs.items()):
        for j, a in enumerate(value if isinstance(value, list) else [value]):
            if hasattr(a, "rows"):  # (a SelectedRows: its rows, height and values)
                a = np.concatenate(
                    [np.asarray(a.rows, np.float64), [a.height], np.asarray(a.values, np.float64).ravel()]
                )
            a = np.asarray(a)
            results[f"{key}|{name}|{j}|{a.dtype.str}|{a.shape}"] = np.frombuffer(a.tobytes(), dtype=np.uint8)
    results[f"{key}|lod"] = np.frombuffer(repr(ctx.out_lod).encode(), dtype=np.uint8)


def _call(results, op, key, ins, attrs=None, lod=None):
    """The op's kernel by name on ``ins`` with LoD ``lod``: its outputs recorded (or its refusal); returned."""
    from pe_cli.kernels.context import KernelContext, takes_context
    from pe_cli.ops import registry

    opdef = registry.get(op)
    attrs = dict(opdef.default_attrs(), **(attrs or {}))
    kernel, ctx = opdef.kernel("cpu"), KernelContext(lod=dict(lod or {}))
    try:
        outs = kernel(dict(ins), attrs, ctx) if takes_context(kernel) else kernel(dict(ins), attrs)
    except Exception as e:  # the same refusal is part of the same behaviour
        results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
        return None
    _save(results, key, outs, ctx)
    return outs


def _offs(lengths):
    return np.concatenate([[0], np.cumsum(lengths)]).astype(int).tolist()


def _shape_ops(results):
    for dtype in ("float32", "float64", "int64"):
        for n, lengths in enumerate([([2, 0, 3], [1, 2, 2]), ([1, 1], [0, 3]), ([2, 2, 1], [1, 1])]):
            xs = [_values(f"cat|{dtype}|{n}|{j}", (sum(ls), 3), dtype) for j, ls in enumerate(lengths)]
            lod = {"X": [[_offs(ls)] for ls in lengths]}
            key = f"concat|{dtype}|{n}"
            outs = _call(results, "sequence_concat", key, {"X": xs}, lod=lod)
            if outs is not None:
                dout = _values(key + "d", outs["Out"].shape, dtype)
                _call(results, "sequence_concat_grad", key + "|g", {"X": xs, "Out@GRAD": dout}, lod=lod)
        x = _values(f"slice|{dtype}", (8, 2), dtype)
        for n, (off, length) in enumerate([([0, 1, 2], [3, 0, 2]), ([1, 0, 0], [2, 1, 4]), ([0, 0, 5], [1, 1, 1])]):
            for idt in ("int32", "int64"):
                ins = {"X": x, "Offset": np.array(off, idt).reshape(-1, 1), "Length": np.array(length, idt)}
                key, lod = f"slice|{dtype}|{n}|{idt}", {"X": [[0, 3, 4, 8]]}
                outs = _call(results, "sequence_slice", key, ins, lod=lod)
                if outs is not None:
                    ins["Out@GRAD"] = _values(key + "d", outs["Out"].shape, dtype)
                    _call(results, "sequence_slice_grad", key + "|g", ins, lod=lod)
        for n, (attrs, y, lod) in enumerate(
            [
                ({"target_lod": [0, 2, 8]}, None, {}),
                ({"target_lod": [0, 2, 8], "append": True}, None, {"X": [[0, 1, 2]]}),
                ({"target_lod": [0, 9]}, None, {}),
                ({}, np.array([0, 5, 8], np.int32), {}),
                ({}, _values("ly", (8, 1), "float32"), {"Y": [[0, 4, 8]]}),
                ({"append": True}, np.array([0, 3, 8], np.int64), {"X": [[0, 1]]}),
            ]
        ):
            ins = {"X": x} if y is None else {"X": x, "Y": y}
            _call(results, "lod_reset", f"reset|{dtype}|{n}", ins, attrs, lod)


def _window_ops(results):
    lod = {"X": [[0, 3, 3, 7]], "Ids": [[0, 3, 3, 7]]}
    for dtype in ("int32", "int64"):
        x = _ids(f"enum|{dtype}", (7, 1), 9, dtype)
        for win, pad in ((2, 0), (3, -1), (5, 4)):
            _call(results, "sequence_enumerate", f"enum|{dtype}|{win}|{pad}", {"X": x}, {"win_size": win}, lod)
            _call(results, "sequence_enumerate", f"enum|{dtype}|{win}|{pad}|p", {"X": x}, {"pad_value": pad}, lod)
    for dtype in ("float32", "float64"):
        for n, shape in enumerate([(3, 6), (4, 2, 3), (3, 6)]):
            x = _values(f"sc|{dtype}|{n}", shape, dtype)
            ids = _ids(f"sc|ids|{n}", (7, 1), 6 if n < 2 else 9)
            upd = _values(f"sc|upd|{dtype}", (7, 1), dtype)
            ins, key = {"X": x, "Ids": ids, "Updates": upd}, f"scatter|{dtype}|{n}"
            outs = _call(results, "sequence_scatter", key, ins, lod=lod)
            if outs is not None:
                g = {"Ids": ids, "Updates": upd, "Out@GRAD": _values(key + "d", shape, dtype)}
                _call(results, "sequence_scatter_grad", key + "|g", g, lod=lod)
        for n, (shape, xlod) in enumerate([((7, 4), lod), ((3, 5, 4), {}), ((7, 4), {"X": [[0, 7]]}), ((7, 4), {})]):
            base = _values(f"rc|{dtype}|{n}", (shape[0], shape[-1] * 2) + shape[1:-1], dtype)
            x = np.moveaxis(base, 1, -1)[..., ::2] if len(shape) == 3 else base[:, ::2]  # (strided)
            w = _values(f"rc|w|{dtype}", (3, shape[-1]), dtype)
            key = f"row_conv|{dtype}|{n}"
            outs = _call(results, "row_conv", key, {"X": x, "Filter": w}, lod=xlod)
            if outs is not None:
                g = {"X": x, "Filter": w, "Out@GRAD": _values(key + "d", outs["Out"].shape, dtype)}
                _call(results, "row_conv_grad", key + "|g", g, lod=xlod)


def _rows_ops(results):
    for dtype in ("float32", "float64"):
        for shape in ((3, 4), (3, 4, 2), (0, 4)):
            for n, length in enumerate([[2, 0, 4], [4, 4, 4], [1, 5, 0]]):
                x = _values(f"unpad|{dtype}|{shape}", shape, dtype)
                _call(results, "sequence_unpad", f"unpad|{dtype}|{shape}|{n}", {"X": x, "Length": np.array(length)})
    for dtype in ("int32", "int64"):
        x = _ids(f"mask|{dtype}", (2, 3), 6, dtype)
        for n, (attrs, extra) in enumerate(
            [({}, {}), ({"maxlen": 4}, {}), ({"out_dtype": "float32"}, {}), ({}, {"MaxLenTensor": np.array([7])})]
        ):
            _call(results, "sequence_mask", f"mask|{dtype}|{n}", {"X": x, **extra}, attrs)
        ids = _ids(f"erase|{dtype}", (9, 1), 6, dtype)
        for tokens in ([], [2], [0, 3, 5], [0, 1, 2, 3, 4, 5]):
            for lod in ([[0, 4, 4, 9]], [[0, 1, 2], [0, 4, 9]]):
                _call(
                    results,
                    "sequence_erase",
                    f"erase|{dtype}|{tokens}|{lod}",
                    {"X": ids},
                    {"tokens": tokens},
                    {"X": lod},
                )


def _image_ops(results):
    forms = [
        {"kernels": [2, 2], "strides": [1, 1], "paddings": [0, 0, 0, 0]},
        {"kernels": [3, 2], "strides": [2, 1], "paddings": [1, 0, 1, 1]},
        {"kernels": [2, 3], "strides": [1, 2], "paddings": [0, 1, 0, 0], "out_stride": [2, 1]},
        {"kernels": [9, 9], "strides": [1, 1], "paddings": [0, 0, 0, 0]},
    ]
    for dtype in ("float32", "float64"):
        x = _values(f"im|{dtype}", (2, 3, 5, 6), dtype)
        for n, attrs in enumerate(forms):
            for real in (None, np.array([[5, 6], [3, 4]], np.int64)):
                ins = {"X": x} if real is None else {"X": x, "Y": real}
                key = f"im2seq|{dtype}|{n}|{real is None}"
                outs = _call(results, "im2sequence", key, ins, attrs)
                if outs is not None:
                    g = dict(ins, **{"Out@GRAD": _values(key + "d", outs["Out"].shape, dtype)})
                    _call(results, "im2sequence_grad", key + "|g", g, attrs)


def _metric_ops(results):
    lod = {"Inference": [[0, 4, 4, 9]], "Label": [[0, 4, 4, 9]]}
    for scheme, types in (("IOB", 2), ("IOE", 3), ("IOBES", 2), ("plain", 3)):
        kinds = {"IOB": 2, "IOE": 2, "IOBES": 4, "plain": 1}[scheme]
        inf, lab = _ids(f"ch|i|{scheme}", (9, 1), types * kinds + 1), _ids(f"ch|l|{scheme}", (9, 1), types * kinds + 1)
        for excluded in ([], [1]):
            attrs = {"num_chunk_types": types, "chunk_scheme": scheme, "excluded_chunk_types": excluded}
            _call(results, "chunk_eval", f"chunk|{scheme}|{excluded}", {"Inference": inf, "Label": lab}, attrs, lod)
        padded = {"Inference": inf.reshape(3, 3), "Label": lab.reshape(3, 3), "SeqLength": np.array([3, 0, 2])}
        _call(
            results, "chunk_eval", f"chunk|{scheme}|padded", padded, {"num_chunk_types": types, "chunk_scheme": scheme}
        )
    hyps, refs = _ids("ed|h", (7, 1), 4), _ids("ed|r", (6, 1), 4)
    for normalized in (False, True):
        for n, (hl, rl) in enumerate([([[0, 3, 7]], [[0, 2, 6]]), ([[0, 0, 7]], [[0, 6, 6]]), ([[0, 7]], [[0, 2, 6]])]):
            ins, lod = {"Hyps": hyps, "Refs": refs}, {"Hyps": hl, "Refs": rl}
            _call(results, "edit_distance", f"edit|{normalized}|{n}", ins, {"normalized": normalized}, lod)
        ins = {"Hyps": hyps[:6].reshape(2, 3), "Refs": refs.reshape(2, 3)}
        ins.update(HypsLength=np.array([3, 1]), RefsLength=np.array([2, 3]))
        _call(results, "edit_distance", f"edit|{normalized}|padded", ins, {"normalized": normalized})


def _instag_ops(results):
    for dtype in ("float32", "float64"):
        x = _values(f"tag|{dtype}", (6, 3), dtype)
        tags = np.array([[1], [2], [3], [1], [4], [2], [5]], np.int64)
        for is_lod, xlod in ((True, {"Ins": [[0, 2, 3, 6]]}), (False, {})):
            for n, filt in enumerate([[1], [3, 5], [9]]):
                rows = 3 if is_lod else 6
                tlod = [[0, 2, 4, 7]] if is_lod else [_offs([1, 1, 1, 1, 1, 2])]
                lod = dict(xlod, Ins_tag=tlod)
                ins = {"Ins": x, "Ins_tag": tags, "Filter_tag": np.array(filt, np.int64)}
                key, attrs = f"instag|{dtype}|{is_lod}|{n}", {"is_lod": is_lod, "out_val_if_empty": 0}
                outs = _call(results, "filter_by_instag", key, ins, attrs, lod)
                if outs is not None and rows:
                    g = {"Ins": x, "LossWeight": outs["LossWeight"], "IndexMap": outs["IndexMap"]}
                    g["Out@GRAD"] = _values(key + "d", outs["Out"].shape, dtype)
                    _call(results, "filter_by_instag_grad", key + "|g", g, attrs, lod)


def _fused_ops(results):
    lod = {"Ids": [[0, 3, 3, 7]]}
    for wdt in ("float32", "float64", "int64"):
        w = _values(f"emb|w|{wdt}", (6, 4), wdt)
        for n, (shape, top) in enumerate([((7, 1), 6), ((7, 2, 1), 6), ((7, 1), 8)]):
            ids = _ids(f"emb|ids|{n}", shape, top)
            for pad in (-1, 2):
                for sparse in (False, True):
                    attrs, key = {"padding_idx": pad, "is_sparse": sparse}, f"emb|{wdt}|{n}|{pad}|{sparse}"
                    outs = _call(results, "fused_embedding_seq_pool", key, {"W": w, "Ids": ids}, attrs, lod)
                    if outs is not None:
                        g = {"W": w, "Ids": ids, "Out@GRAD": _values(key + "d", outs["Out"].shape, wdt)}
                        grad = _call(results, "fused_embedding_seq_pool_grad", key + "|g", g, attrs, lod)
                        if grad is not None and sparse:
                            sr = grad["W@GRAD"]
                            results[key + "|sr"] = np.frombuffer(
                                np.asarray(sr.rows).tobytes() + sr.values.tobytes(), np.uint8
                            )
    for dtype in ("float32", "float64"):
        xs = [_values(f"pc|{dtype}|{j}", (r, 3), dtype, 0, 3) for j, r in enumerate((7, 5))]
        lods = [[[0, 3, 3, 7]], [[0, 1, 2, 5]]]
        for kind in ("SUM", "AVERAGE", "SQRT"):
            for op in ("fusion_seqpool_concat", "fusion_seqpool_cvm_concat"):
                ins = {"X": xs} if op == "fusion_seqpool_concat" else {"X": xs, "CVM": np.ones((3, 2), dtype)}
                _call(results, op, f"pc|{op}|{dtype}|{kind}", ins, {"pooltype": kind}, {"X": lods})
                _call(results, op, f"pc|{op}|{dtype}|{kind}|bad", ins, {"pooltype": kind}, {"X": [lods[0], [[0, 5]]]})
        x = _values(f"sc|x|{dtype}", (7, 3), dtype)
        for start, length in ((-1, 3), (0, 2), (1, 3), (-2, 5), (2, 3)):
            ins = {
                "X": x,
                "Filter": _values(f"sc|w|{length}", (3 * length, 4), dtype),
                "Bias": _values("sc|b", (1, 4), dtype),
            }
            attrs = {"contextStart": start, "contextLength": length}
            _call(
                results,
                "fusion_seqconv_eltadd_relu",
                f"seqconv|{dtype}|{start}|{length}",
                ins,
                attrs,
                {"X": [[0, 1, 3, 7]]},
            )
        for act in ("identity", "sigmoid", "tanh", "relu"):
            for bias in (None, _values("fc|b", (1, 4), dtype)):
                ins = {"X": [x, _values("fc|x1", (3, 2), dtype)], "FCWeight": _values(f"fc|w|{dtype}", (5, 4), dtype)}
                if bias is not None:
                    ins["FCBias"] = bias
                key = f"fc|{dtype}|{act}|{bias is None}"
                _call(
                    results,
                    "fusion_seqexpand_concat_fc",
                    key,
                    ins,
                    {"fc_activation": act},
                    {"X": [[[0, 1, 3, 7]], None]},
                )


def _rank_ops(results):
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    table_of = registry.get("lod_rank_table").kernel("cpu")
    for dtype in ("float32", "float64", "int64"):
        for n, (rows, lod) in enumerate(
            [(9, [[0, 2, 7, 7, 9]]), (9, [[0, 1, 3], [0, 2, 5, 6, 9]]), (4, [[0, 1, 2, 3, 4]])]
        ):
            x = _values(f"rank|{dtype}|{n}", (rows, 3), dtype)
            for level in range(len(lod)):
                table = table_of({"X": x}, {"level": level}, KernelContext(lod={"X": lod}))["Out"]
                key, xlod = f"rank|{dtype}|{n}|{level}", {"X": lod}
                _call(results, "max_sequence_len", key + "|max", {"RankTable": table})
                outs = _call(results, "reorder_lod_tensor_by_rank", key + "|re", {"X": x, "RankTable": table}, lod=xlod)
                if outs is not None:
                    g = {"X": x, "RankTable": table, "Out@GRAD": _values(key + "d", outs["Out"].shape, dtype)}
                    _call(results, "reorder_lod_tensor_by_rank_grad", key + "|re|g", g, lod=xlod)
                sorted_x = outs["Out"] if outs is not None else x
                for i in range(4):
                    ins = {"X": sorted_x, "I": np.array([i], np.int64), "RankTable": table}
                    shrunk = _call(results, "shrink_rnn_memory", f"{key}|shrink|{i}", ins, lod=xlod)
                    if shrunk is not None:
                        g = {"X": sorted_x, "Out@GRAD": _values(f"{key}|sd{i}", shrunk["Out"].shape, dtype)}
                        _call(results, "shrink_rnn_memory_grad", f"{key}|shrink|{i}|g", g)
            _call(results, "rnn_memory_helper", f"mem|{dtype}|{n}", {"X": x})
            _call(results, "rnn_memory_helper_grad", f"mem|{dtype}|{n}|g", {"X": x, "Out": x, "Out@GRAD": x * 2})
            _call(results, "rnn_memory_helper_grad", f"mem|{dtype}|{n}|g0", {"X": x, "Out": x})


def _steps(results):
    from pe_cli.base.places import CPUPlace
    from pe_cli.executor.plan import OpStep, Values, run_step
    from pe_cli.framework import Program

    forms = [
        ("row_conv", {"X": ["x"], "Filter": ["w"]}, {}),
        ("sequence_concat", {"X": ["x", "v"]}, {}),
        ("sequence_erase", {"X": ["i"]}, {"tokens": [1, 4]}),
    ]
    for n, (op, inputs, attrs) in enumerate(forms):
        program = Program()
        block = program.global_block()
        for name in ("x", "v", "w", "i", "y"):
            block.create_var(name=name)
        block.append_op(op, inputs, {"Out": ["y"]}, attrs)
        step = OpStep(block.ops[0], CPUPlace())
        for j, lengths in enumerate(([3, 5], [1, 0, 7], [3, 5], [1, 0, 7])):
            offs = [_offs(lengths)]
            feeds = {"x": _values("st|x", (8, 3), "float32"), "v": _values("st|v", (8, 3), "float32")}
            feeds.update(w=_values("st|w", (2, 3), "float32"), i=_ids(f"st|i|{j}", (8, 1), 6))
            values = Values(feeds, {"x": offs, "v": offs, "i": offs})
            key = f"step|{n}|{op}|{j}"
            try:
                run_step(step, values)
            except Exception as e:
                results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
                continue
            a = values["y"]
            results[f"{key}|{a.dtype.str}|{a.shape}"] = np.frombuffer(a.tobytes(), dtype=np.uint8)
            results[f"{key}|lod"] = np.frombuffer(repr(values.lods.get("y")).encode(), dtype=np.uint8)


def main(out):
    results = {}
    for part in (
        _shape_ops,
        _window_ops,
        _rows_ops,
        _image_ops,
        _metric_ops,
        _instag_ops,
        _fused_ops,
        _rank_ops,
        _steps,
    ):
        part(results)
    np.savez(out, **{f"r{i}": v for i, v in enumerate(results.values())}, keys=np.array(list(results)))
    print(f"{len(results)} results written to {out}")


if __name__ == "__main__":
    main(sys.argv[1])
