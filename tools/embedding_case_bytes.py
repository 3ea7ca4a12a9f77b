"""tools/op_case_bytes.py's dump of the embedding family (``embedding``): lookup_table, lookup_table_v2 and their
gradient ops through their CPU kernels on W of float16/32/64 and int64, Ids of int64 and int32 of each shape
(1-D, [N, 1], 3-D, a trailing 1 of v2's, empty, from 256 ids: the rows copied on the threads), padding_idx none,
a row, beyond the table (numpy's IndexError where an id is it), an id out of range (the one-line refusal), a W
that is not C-contiguous, dense and row-sparse (is_sparse) gradients: a SelectedRows's rows, values and height
each recorded. ``record(results, key, fn)`` and ``direct(opdef, ins, attrs, ctx)`` are op_case_bytes.py's."""

import numpy as np

_IDS = [(5, 1), (7,), (2, 3, 1), (3, 4), (0, 1), (300, 1), (20, 16)]


def _plain(outs):
    """Each SelectedRows output as its rows, values and height (its duplicates and order kept)."""
    plain = {}
    for slot, value in outs.items():
        if hasattr(value, "rows") and hasattr(value, "values"):
            plain.update({f"{slot}.rows": value.rows, f"{slot}.values": value.values})
            plain[f"{slot}.height"] = np.array(value.height)
        else:
            plain[slot] = value
    return plain


def _ids(rng, shape, rows, pad, ids_dtype, bad):
    ids = rng.integers(0, rows, size=shape)
    if ids.size and pad != -1:
        ids.reshape(-1)[::3] = pad
    if ids.size and bad:
        ids.reshape(-1)[-1] = rows + 3
    return ids.astype(ids_dtype)


def embedding(results, record, direct, rng):
    """The dumps above, each forward and, where it runs, its gradient dense and row-sparse."""
    from pe_cli.ops import registry

    for op in ("lookup_table", "lookup_table_v2"):
        fwd, grad = registry.get(op), registry.get(op + "_grad")
        for wdtype in ("float16", "float32", "float64", "int64"):
            for layout in ("c", "f"):
                w = (rng.uniform(-3, 3, size=(12, 6)) * (10 if wdtype == "int64" else 1)).astype(wdtype)
                w = w if layout == "c" else np.asfortranarray(w)
                for shape in _IDS:
                    if op == "lookup_table" and len(shape) > 1 and shape[-1] != 1 and shape != (3, 4):
                        continue
                    for pad in (-1, 4, 12):
                        for ids_dtype, bad in (("int64", False), ("int32", False), ("int64", True)):
                            ids = _ids(rng, shape, 12, pad, ids_dtype, bad)
                            attrs = dict(fwd.default_attrs(), padding_idx=pad)
                            key = f"embedding|{op}|{wdtype}|{layout}|{shape}|{pad}|{ids_dtype}|{bad}"
                            ins = {"W": w, "Ids": ids}
                            record(results, key, lambda: direct(fwd, ins, attrs, None))
                            try:
                                out = np.asarray(direct(fwd, ins, attrs, None)["Out"])
                            except Exception:
                                out = np.zeros(tuple(ids.shape) + (6,), w.dtype)
                            dout = rng.uniform(-1, 1, size=out.shape).astype(wdtype)
                            for sparse in (False, True):
                                gins = {"W": w, "Ids": ids, "Out@GRAD": dout}
                                gattrs = dict(attrs, is_sparse=sparse)
                                record(
                                    results, f"{key}|grad|{sparse}", lambda: _plain(direct(grad, gins, gattrs, None))
                                )
