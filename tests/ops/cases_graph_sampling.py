"""Op cases for weighted_sample_neighbors and graph_sample_neighbors (pe_cli/ops/graph_sampling.py): random ops,
checked by what every draw must satisfy (counts, membership, no repeats, zero-weight edges never taken while
others remain, all of a node's edges when it has no more than sample_size) and by the frequency weights give
over 1,000 draws (tolerance > 5 standard errors); graph_sample_neighbors where it draws nothing (sample_size at
least each node's in-degree, or 0) against Paddle 2.6.2's recorded values (tests/ops/paddle26.py), and with -1
(all: Paddle's documented meaning and its GPU kernel's; its CPU kernel fails)."""

import numpy as np

from op_test import OpCase
from tests.ops.paddle26 import recorded_cases

# CSC graph: node 0 <- edges 0..5 (sources 10..15, the last two of weight 0); node 1 <- edges 6, 7;
# node 2 <- edges 8 (weight 9) and 9 (weight 1); node 3 <- none
ROW = np.array([10, 11, 12, 13, 14, 15, 20, 21, 30, 31], np.int64)
COLPTR = np.array([0, 6, 8, 10, 10], np.int64)
WEIGHT = np.array([1, 2, 3, 4, 0, 0, 1, 1, 9, 1], np.float32)
EIDS = np.arange(100, 110, dtype=np.int64)
GRAPH = {"row": ROW, "colptr": COLPTR, "edge_weight": WEIGHT, "eids": EIDS}
OUTS = ("out_neighbors", "out_count", "out_eids")


def _check_three(outs, inputs):
    neighbors, count, eids = outs["out_neighbors"], outs["out_count"], outs["out_eids"]
    assert count.dtype == np.int64 and count.tolist() == [3, 2, 0]
    assert len(set(neighbors[:3].tolist())) == 3 and set(neighbors[:3].tolist()) <= {10, 11, 12, 13}  # no weight 0
    assert neighbors[3:].tolist() == [20, 21]  # all of node 1's, in order
    np.testing.assert_array_equal(eids, EIDS[np.searchsorted(ROW, neighbors)])


def _check_frequency(outs, inputs):
    neighbors, count = outs["out_neighbors"], outs["out_count"]
    assert count.tolist() == [1] * 1000 and set(neighbors.tolist()) == {30, 31}
    assert abs(np.mean(neighbors == 30) - 0.9) < 0.05  # weight 9 against 1


CASES = [
    OpCase(
        "weighted_sample_neighbors",
        dict(GRAPH, input_nodes=np.array([0, 1, 3], np.int64)),
        attrs={"sample_size": 3, "return_eids": True},
        outputs=OUTS,
        check=_check_three,
    ),
    OpCase(
        "weighted_sample_neighbors",
        dict(GRAPH, input_nodes=np.full(1000, 2, np.int64)),
        attrs={"sample_size": 1, "return_eids": True},
        outputs=OUTS,
        check=_check_frequency,
        name="weighted_sample_neighbors_frequency",
    ),
]


# graph_sample_neighbors: node 0 <- edges 0..5 (sources 10..15), node 1 <- edges 6, 7, node 2 <- none
SAMPLE_GRAPH = {"Row": np.array([10, 11, 12, 13, 14, 15, 20, 21]), "Col_Ptr": np.array([0, 6, 8, 8])}
SAMPLE_OUTS = ("Out", "Out_Count", "Out_Eids")


def _check_uniform_draws(outs, inputs):
    """1,000 draws of 2 of node 0's 6 edges: two distinct edges each time, ids matching sources, each edge first
    and second with frequency 1/6 (5 standard errors: 0.059)."""
    out, count, eids = outs["Out"], outs["Out_Count"], outs["Out_Eids"]
    assert count.dtype == np.int32 and count.tolist() == [2] * 1000
    pairs = eids.reshape(1000, 2)
    assert (pairs[:, 0] != pairs[:, 1]).all() and set(eids.tolist()) <= set(range(100, 106))
    np.testing.assert_array_equal(out, eids - 90)
    for place in (0, 1):
        freq = np.bincount(pairs[:, place] - 100, minlength=6) / 1000
        assert np.abs(freq - 1 / 6).max() < 0.059, freq


CASES += [
    OpCase(
        "graph_sample_neighbors",
        dict(SAMPLE_GRAPH, X=np.array([1, 0, 2, 1])),
        lambda i, a: {
            "Out": np.array([20, 21, 10, 11, 12, 13, 14, 15, 20, 21]),
            "Out_Count": np.array([2, 6, 0, 2], np.int32),
        },
        attrs={"sample_size": -1},
        outputs=("Out", "Out_Count"),
        name="graph_sample_neighbors_minus_one_takes_all",
    ),
    OpCase(
        "graph_sample_neighbors",
        dict(SAMPLE_GRAPH, X=np.zeros(1000, np.int64), Eids=np.arange(100, 108)),
        attrs={"sample_size": 2, "return_eids": True},
        outputs=SAMPLE_OUTS,
        check=_check_uniform_draws,
        name="graph_sample_neighbors_uniform_draws",
    ),
]
CASES += recorded_cases("graph_sampling")


def _check_khop_draw(outs, inputs):
    """One layer drawing 2 of node 0's 6 in-neighbours: two distinct sources among 10..15, reindexed after node 0."""
    src, dst, index = outs["Out_Src"], outs["Out_Dst"], outs["Sample_Index"]
    assert src.shape == (2, 1) and src.ravel().tolist() == [1, 2] and dst.ravel().tolist() == [0, 0]
    assert index[0] == 0 and len(set(index[1:].tolist())) == 2 and set(index[1:].tolist()) <= set(range(10, 16))
    assert outs["Reindex_X"].tolist() == [0]


CASES.append(
    OpCase(
        "graph_khop_sampler",
        dict(SAMPLE_GRAPH, X=np.array([0])),
        attrs={"sample_sizes": [2]},
        outputs=("Out_Src", "Out_Dst", "Sample_Index", "Reindex_X", "Out_Eids"),
        check=_check_khop_draw,
        name="graph_khop_sampler_draws",
    )
)
