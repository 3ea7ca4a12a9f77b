"""paddle.geometric in static mode: weighted_sample_neighbors builds the registry's op and samples a
CSC graph fed at run time; Paddle's argument errors; the module's other names refuse in one line."""

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.base.errors import FluidUnsupported


def test_weighted_sample_neighbors_in_a_static_program():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        row = paddle.static.data("row", [6], "int64")
        colptr = paddle.static.data("colptr", [3], "int64")
        weight = paddle.static.data("weight", [6], "float32")
        nodes = paddle.static.data("nodes", [2], "int64")
        eids = paddle.static.data("eids", [6], "int64")
        out, count, out_eids = paddle.geometric.weighted_sample_neighbors(
            row, colptr, weight, nodes, 2, eids, return_eids=True
        )
        with pytest.raises(ValueError, match="eids"):
            paddle.geometric.weighted_sample_neighbors(row, colptr, weight, nodes, return_eids=True)
        with pytest.raises(
            TypeError, match="weighted_sample_neighbors: edge_weight 'row' is int64; it must be one of float32"
        ):
            paddle.geometric.weighted_sample_neighbors(row, colptr, row, nodes)
    feed = {
        "row": np.array([5, 6, 7, 8, 9, 4]),
        "colptr": np.array([0, 4, 6]),
        "weight": np.array([1, 1, 0, 1, 1, 1], "float32"),
        "nodes": np.array([0, 1]),
        "eids": np.arange(6) * 10,
    }
    got, n, e = paddle.static.Executor().run(main, feed=feed, fetch_list=[out, count, out_eids])
    assert n.tolist() == [2, 2] and len(set(got[:2].tolist())) == 2 and set(got[:2].tolist()) <= {5, 6, 8}
    assert got[2:].tolist() == [9, 4] and e.tolist() == [10 * list(feed["row"]).index(v) for v in got]
    with pytest.raises(FluidUnsupported, match="paddle.geometric.segment_sum: .*weighted_sample_neighbors"):
        paddle.geometric.segment_sum(None, None)
