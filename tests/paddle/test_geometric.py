"""paddle.geometric in static mode: weighted_sample_neighbors builds the registry's op and samples a
CSC graph fed at run time; send_u_recv, send_ue_recv and send_uv build Paddle 2.6.2's message-passing ops
(their values against Paddle's: tests/paddle/test_paddle26_static_builds.py, tests/ops/cases_graph_message_passing.py)
and refuse what Paddle's kernels do not compute; Paddle's argument errors; the module's other names refuse in one
line."""

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.base.errors import PeError


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


def test_sample_neighbors_in_a_static_program():
    """sample_neighbors builds graph_sample_neighbors: -1 takes every in-neighbour (Paddle's documented meaning;
    its CPU kernel fails on -1), a smaller sample_size draws that many distinct ones; out_count is int32 (what
    Paddle's kernel writes); Paddle's argument errors."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        row = paddle.static.data("row", [6], "int64")
        colptr = paddle.static.data("colptr", [3], "int64")
        nodes = paddle.static.data("nodes", [2], "int64")
        eids = paddle.static.data("eids", [6], "int64")
        every = paddle.geometric.sample_neighbors(row, colptr, nodes)
        two = paddle.geometric.sample_neighbors(row, colptr, nodes, 2, eids, return_eids=True)
        with pytest.raises(ValueError, match="eids"):
            paddle.geometric.sample_neighbors(row, colptr, nodes, return_eids=True)
        with pytest.raises(TypeError, match="graph_sample_neighbors: X '.*' is float32"):
            paddle.geometric.sample_neighbors(row, colptr, paddle.cast(eids, "float32"))
    feed = {"row": np.array([5, 6, 7, 8, 9, 4]), "colptr": np.array([0, 4, 6]), "nodes": np.array([0, 1])}
    feed["eids"] = np.arange(6) * 10
    out, count, picked, n, e = paddle.static.Executor().run(main, feed=feed, fetch_list=list(every) + list(two))
    assert out.tolist() == [5, 6, 7, 8, 9, 4] and count.dtype == np.int32 and count.tolist() == [4, 2]
    assert n.tolist() == [2, 2] and len(set(picked[:2].tolist())) == 2 and set(picked[:2].tolist()) <= {5, 6, 7, 8}
    assert picked[2:].tolist() == [9, 4] and e.tolist() == [10 * (v - 5) if v > 4 else 50 for v in picked]


def _graph(build, feed):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [4, 3], "float32")
        src = paddle.static.data("src", [-1], "int64")
        dst = paddle.static.data("dst", [-1], "int64")
        out = build(x, src, dst)
    return paddle.static.Executor().run(
        main, feed=dict({"x": np.arange(12, dtype="float32").reshape(4, 3)}, **feed), fetch_list=[out]
    )[0]


def test_message_passing_gives_paddles_values_and_refuses_an_index_outside_the_rows():
    """Paddle 2.6.2's values (its docstring's graph: x = [[0, 2, 3], [1, 4, 5], [2, 6, 7]] there, arange here,
    recorded on Paddle 2.6.2); an index outside X's or Out's rows is refused in one line (Paddle's graph_send_recv
    raises OutOfRangeError: 'The end row index is out of bound'; its send_ue_recv and send_uv read and write out
    of bounds, giving garbage), as are no edges for send_uv (Paddle: 'index_size > 0')."""
    feed = {"src": np.array([0, 1, 2, 0]), "dst": np.array([1, 2, 1, 0])}
    got = _graph(lambda x, s, d: paddle.geometric.send_u_recv(x, s, d, "max"), feed)
    assert got.tolist() == [[0, 1, 2], [6, 7, 8], [3, 4, 5], [0, 0, 0]]
    got = _graph(lambda x, s, d: paddle.geometric.send_u_recv(x, s, d, "mean", out_size=5), feed)
    assert got.tolist() == [[0, 1, 2], [3, 4, 5], [3, 4, 5], [0, 0, 0], [0, 0, 0]]
    with pytest.raises(PeError, match=r"graph_send_recv: Dst_index holds 5, outside \[0, 4\) \(Out's rows\)"):
        _graph(
            lambda x, s, d: paddle.geometric.send_u_recv(x, s, d), {"src": feed["src"], "dst": np.array([1, 5, 0, 0])}
        )
    with pytest.raises(PeError, match=r"graph_send_recv: Src_index holds -1, outside \[0, 4\)"):
        _graph(
            lambda x, s, d: paddle.geometric.send_u_recv(x, s, d), {"src": np.array([0, -1, 0, 0]), "dst": feed["dst"]}
        )
    with pytest.raises(PeError, match=r"graph_send_ue_recv: Dst_index holds 9, outside \[0, 2\)"):
        _graph(
            lambda x, s, d: paddle.geometric.send_ue_recv(x, paddle.ones([4], "float32"), s, d, out_size=2),
            {"src": feed["src"], "dst": np.array([1, 9, 0, 0])},
        )
    with pytest.raises(PeError, match=r"graph_send_uv: dst_index holds 4, outside \[0, 4\) \(y's rows\)"):
        _graph(
            lambda x, s, d: paddle.geometric.send_uv(x, x, s, d), {"src": feed["src"], "dst": np.array([1, 4, 0, 0])}
        )
    with pytest.raises(PeError, match="graph_send_uv: src_index and dst_index hold no edge"):
        _graph(
            lambda x, s, d: paddle.geometric.send_uv(x, x, s, d),
            {"src": np.zeros(0, "int64"), "dst": np.zeros(0, "int64")},
        )


def test_message_passing_argument_checks_and_values_paddle_does_not_compute():
    """Paddle's ValueError for a reduce_op / message_op it has no name for, its TypeError for a float index; an
    op holding reduce_op or message_op Paddle 2.6.2's kernels leave as zeros (AVG, SUB) is refused naming it."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [4, 3], "float32")
        idx = paddle.static.data("idx", [4], "int64")
        with pytest.raises(ValueError, match="reduce_op should be `sum`, `mean`, `max` or `min`, but received avg"):
            paddle.geometric.send_u_recv(x, idx, idx, "avg")
        with pytest.raises(ValueError, match="message_op should be `add`, `sub`, `mul`, `div`, but received pow"):
            paddle.geometric.send_uv(x, x, idx, idx, "pow")
        with pytest.raises(TypeError, match="graph_send_recv: Src_index 'x' is float32"):
            paddle.geometric.send_u_recv(x, x, idx)
        with pytest.raises(TypeError, match="graph_send_recv: out_size must be int"):
            paddle.geometric.send_u_recv(x, idx, idx, out_size=2.5)
        block = main.global_block()
        outs = {"Out": [block.create_var(name="o")], "Dst_count": [block.create_var(name="c")]}
        with pytest.raises(ValueError, match="attribute reduce_op='AVG' is not one of"):
            block.append_op(
                "graph_send_recv", {"X": [x], "Src_index": [idx], "Dst_index": [idx]}, outs, {"reduce_op": "AVG"}
            )
        ins = {"X": [x], "Y": [x], "Src_index": [idx], "Dst_index": [idx]}
        with pytest.raises(ValueError, match="attribute message_op='SUB' is not one of"):
            block.append_op("graph_send_ue_recv", ins, outs, {"message_op": "SUB"})


def test_reindex_graph_refuses_counts_that_do_not_cover_the_neighbors():
    """reindex_graph's values are Paddle's (tests/ops/cases_graph_reindexing.py, static_graph_reindex); a Count that
    does not sum to Neighbors' length (Paddle 2.6.2's kernel writes past its buffer, or leaves zeros) and an X
    without nodes (Paddle: 'The first of dims should not be equal to 0.') are refused in one line."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [-1], "int64")
        nb = paddle.static.data("nb", [-1], "int64")
        cnt = paddle.static.data("cnt", [-1], "int32")
        outs = paddle.geometric.reindex_graph(x, nb, cnt)
        with pytest.raises(TypeError, match="graph_reindex: Count 'nb' is int64"):
            paddle.geometric.reindex_graph(x, nb, nb)
    exe = paddle.static.Executor()
    got = exe.run(
        main,
        feed={"x": np.array([5, 3]), "nb": np.array([3, 7, 1]), "cnt": np.array([2, 1], "int32")},
        fetch_list=list(outs),
    )
    assert [g.tolist() for g in got] == [[1, 2, 3], [0, 0, 1], [5, 3, 7, 1]]
    with pytest.raises(PeError, match="graph_reindex: Count sums to 4 .*Neighbors holds 3 edges"):
        exe.run(
            main,
            feed={"x": np.array([5, 3]), "nb": np.array([3, 7, 1]), "cnt": np.array([2, 2], "int32")},
            fetch_list=list(outs),
        )
    with pytest.raises(PeError, match="graph_reindex: X holds no node"):
        exe.run(
            main,
            feed={"x": np.zeros(0, "int64"), "nb": np.zeros(0, "int64"), "cnt": np.zeros(0, "int32")},
            fetch_list=list(outs),
        )


def test_incubate_graph_operators_build_paddles_ops_and_give_its_values():
    """paddle.incubate.graph_send_recv, segment_mean and graph_reindex (their older names): the ops Paddle 2.6.2's
    program holds and the values it gave for this program (recorded on Paddle 2.6.2; graph_reindex of an X holding
    node 0 twice lists it twice, with its last id)."""
    paddle.enable_static()
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [3, 3], "float32")
        s, d = paddle.static.data("s", [4], "int64"), paddle.static.data("d", [4], "int64")
        outs = [paddle.incubate.graph_send_recv(x, s, d, "max", out_size=4)]
        outs.append(paddle.incubate.segment_mean(x, paddle.static.data("g", [3], "int64")))
        outs += list(paddle.incubate.graph_reindex(s, d, paddle.full([4], 1, "int32")))
        with pytest.raises(ValueError, match="pool_type should be `sum`, `mean`, `max` or `min`, but received avg"):
            paddle.incubate.graph_send_recv(x, s, d, "avg")
    assert [op.type for op in main.global_block().ops] == [
        "graph_send_recv",
        "segment_pool",
        "fill_constant",
        "graph_reindex",
    ]
    feed = {"x": np.array([[0, 2, 3], [1, 4, 5], [2, 6, 7]], "float32"), "s": np.array([0, 1, 2, 0])}
    feed.update(d=np.array([1, 2, 1, 0]), g=np.array([0, 0, 1]))
    got = [g.tolist() for g in paddle.static.Executor().run(main, feed=feed, fetch_list=outs)]
    assert got == [
        [[0.0, 2.0, 3.0], [2.0, 6.0, 7.0], [1.0, 4.0, 5.0], [0.0, 0.0, 0.0]],
        [[0.5, 3.0, 4.0], [2.0, 6.0, 7.0]],
        [1, 2, 1, 3],
        [3, 1, 2, 3],
        [0, 1, 2, 0],
    ]


def test_incubate_graph_khop_sampler_gives_paddles_subgraph():
    """paddle.incubate.graph_khop_sampler builds graph_khop_sampler; where no layer draws (each size at least every
    in-degree) it gives the subgraph Paddle 2.6.2 gave (ops26.json's graph_khop_sampler_one_layer: X holding node 2
    twice in a row, which Paddle's kernel samples once)."""
    paddle.enable_static()
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        row, colptr = paddle.static.data("row", [13], "int64"), paddle.static.data("colptr", [11], "int64")
        nodes = paddle.static.data("nodes", [4], "int64")
        outs = paddle.incubate.graph_khop_sampler(row, colptr, nodes, [5])
        with pytest.raises(ValueError, match="`sorted_eid` should not be None if return_eids is True."):
            paddle.incubate.graph_khop_sampler(row, colptr, nodes, [5], return_eids=True)
    assert [op.type for op in main.global_block().ops] == ["graph_khop_sampler"]
    feed = {
        "row": np.array([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7]),
        "colptr": np.array([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13]),
    }
    feed["nodes"] = np.array([0, 2, 2, 5])
    src, dst, index, reindex = paddle.static.Executor().run(main, feed=feed, fetch_list=list(outs))
    assert src.ravel().tolist() == [3, 4, 5, 6, 3] and dst.ravel().tolist() == [0, 0, 1, 2, 2]
    assert index.tolist() == [0, 2, 5, 3, 7, 1, 9] and reindex.tolist() == [0, 1, 1, 2]
