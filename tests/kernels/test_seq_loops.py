"""The sequence loops (kernels/cpu/_seq_loops.py) to the bit: sequence_pool's sums (each column in row
order, in float64) and their gradient, and embedding_sums, fused_embedding_seq_pool's loop, which must
give what lookup_table then sequence_pool give, on one thread and in blocks of sequences on several."""

import numpy as np
import pytest

from pe_cli.kernels.context import KernelContext
from pe_cli.kernels.common import POOL_CODES
from pe_cli.kernels.cpu.runtime import loops as _numba
from pe_cli.kernels.cpu import _seq_loops
from pe_cli.ops import registry

rng = np.random.default_rng(11)


@pytest.fixture(autouse=True)
def compile_now(monkeypatch):
    monkeypatch.setattr(_numba, "EAGER", True)


def offsets(lengths):
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sums_add_each_column_in_row_order_in_float64(dtype):
    offs = offsets([3, 0, 5, 1])
    x = (rng.standard_normal((9, 6)) * 10.0 ** rng.integers(-6, 6, (9, 6))).astype(dtype)
    out, idx = np.empty((4, 6), dtype), np.empty((4, 6), np.int32)
    _seq_loops.pool(x, offs, POOL_CODES["SUM"], dtype(0.5), out, idx)
    for s, (a, b) in enumerate(zip(offs, offs[1:])):
        for c in range(6):
            acc = 0.0
            for r in range(a, b):
                acc += float(x[r, c])
            assert out[s, c] == (dtype(acc) if b > a else dtype(0.5))
    assert (idx == -1).all()
    d = rng.standard_normal((4, 6)).astype(dtype)
    dx = np.zeros_like(x)
    _seq_loops.pool_grad(d, offs, POOL_CODES["AVERAGE"], idx, dx)
    for s, (a, b) in enumerate(zip(offs, offs[1:])):
        if b > a:
            np.testing.assert_array_equal(
                dx[a:b], np.broadcast_to((d[s].astype(np.float64) / (b - a)).astype(dtype), (b - a, 6))
            )


@pytest.mark.parametrize("k,pad", [(1, -1), (2, 3)])
def test_embedding_sums_are_lookup_then_sequence_pool_on_one_thread_and_in_blocks(k, pad):
    offs = offsets(rng.integers(0, 5, 40))
    ids = rng.integers(0, 30, (int(offs[-1]), k)).astype(np.int64)
    w = rng.standard_normal((30, 5)).astype(np.float32)
    lookup = registry.get("lookup_table").kernel("cpu")
    rows = lookup({"W": w, "Ids": ids.reshape(-1, 1)}, {"padding_idx": pad})["Out"]
    want = registry.get("sequence_pool").kernel("cpu")(
        {"X": rows.reshape(len(ids), -1)},
        {"pooltype": "SUM", "pad_value": 0.0},
        KernelContext(lod={"X": [offs.tolist()]}),
    )["Out"]
    out = np.empty((40, k * 5), np.float32)
    _seq_loops.embedding_sums(w, ids, offs, pad, out)
    np.testing.assert_array_equal(out, want)
    for parts in (2, 3):
        twin = np.empty_like(out)
        _seq_loops.embedding_sums_parallel(w, ids, offs, pad, twin, parts)
        assert twin.tobytes() == out.tobytes()
