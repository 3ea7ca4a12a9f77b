"""beam_search against a hand-worked step (Fluid's semantics: finished branches, pruning, LoD), and
beam_search_decode back-tracing two steps written into tensor arrays."""

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.base.errors import PeError
from pe_cli.fluid import layers

END = 0


def _feeds(*specs):
    """Feeds with a 2-level LoD: (name, width, dtype) each."""
    return [layers.data(name, [width], dtype=dtype, lod_level=2) for name, width, dtype in specs]


def _step_program():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        pre_ids, pre_scores, ids, scores = _feeds(
            ("pre_ids", 1, "int64"), ("pre_scores", 1, "float32"), ("ids", 2, "int64"), ("scores", 2, "float32")
        )
        out = layers.beam_search(pre_ids, pre_scores, ids, scores, beam_size=2, end_id=END, return_parent_idx=True)
    return main, out


def _lod(values, lengths, dtype):
    return fluid.create_lod_tensor(np.array(values, dtype=dtype), lengths, fluid.CPUPlace())


def test_one_step_selects_the_best_per_source_and_prunes_finished_sources():
    main, (sel_ids, sel_scores, parents) = _step_program()
    lengths = [[2, 1, 1], [1, 1, 1, 1]]  # source 0: prefixes 0, 1; source 1: prefix 2; source 2: 3
    feed = {
        "pre_ids": _lod([[4], [END], [5], [END]], lengths, "int64"),
        "pre_scores": _lod([[-1.0], [-0.5], [-2.0], [-0.1]], lengths, "float32"),
        "ids": _lod([[7, 8], [9, 3], [2, END], [6, 1]], lengths, "int64"),
        "scores": _lod([[-0.7, -1.5], [-9.0, -9.0], [-2.5, -2.2], [-5.0, -6.0]], lengths, "float32"),
    }
    ids, scores, parent = fluid.Executor(fluid.CPUPlace()).run(
        main, feed=feed, fetch_list=[sel_ids, sel_scores, parents], return_numpy=False
    )
    # source 0: the ended prefix 1 offers (END, -0.5), prefix 0 offers (7, -0.7) and (8, -1.5): best two
    # source 1: (END, -2.2) and (2, -2.5); source 2: its only prefix ended and picks END: pruned
    assert np.array(ids).reshape(-1).tolist() == [7, END, END, 2]
    np.testing.assert_allclose(np.array(scores).reshape(-1), [-0.7, -0.5, -2.2, -2.5])
    assert np.array(parent).tolist() == [0, 1, 2, 2]
    assert ids.lod() == [[0, 2, 3, 4], [0, 1, 2, 4, 4]]


def test_decode_back_traces_the_arrays_of_two_steps():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        ids0, sc0, ids1, sc1 = _feeds(
            ("ids0", 1, "int64"), ("sc0", 1, "float32"), ("ids1", 1, "int64"), ("sc1", 1, "float32")
        )
        zero, one = layers.fill_constant([1], "int64", 0), layers.fill_constant([1], "int64", 1)
        id_array = layers.array_write(ids0, zero)
        layers.array_write(ids1, one, id_array)
        score_array = layers.array_write(sc0, zero)
        layers.array_write(sc1, one, score_array)
        sentences, sentence_scores = layers.beam_search_decode(id_array, score_array, beam_size=2, end_id=END)
    # step 0: one source, one prefix, two words (3, 5); step 1: prefix 0 (word 3) -> 4, prefix 1 (word 5) -> END
    feed = {
        "ids0": _lod([[3], [5]], [[1], [2]], "int64"),
        "sc0": _lod([[-0.2], [-0.4]], [[1], [2]], "float32"),
        "ids1": _lod([[4], [END]], [[2], [1, 1]], "int64"),
        "sc1": _lod([[-0.9], [-0.6]], [[2], [1, 1]], "float32"),
    }
    got_ids, got_scores = fluid.Executor(fluid.CPUPlace()).run(
        main, feed=feed, fetch_list=[sentences, sentence_scores], return_numpy=False
    )
    # two hypotheses, the better last score first: [5, END] (-0.6), then [3, 4] (-0.9)
    assert np.array(got_ids).tolist() == [5, END, 3, 4]
    np.testing.assert_allclose(np.array(got_scores), [-0.4, -0.6, -0.2, -0.9])
    assert got_ids.lod() == [[0, 2], [0, 2, 4]]


def test_array_read_is_a_sequence_when_a_sequence_was_written():
    """As Fluid at build time: an array takes the lod_level of what is written, array_read gives it
    back, so a decoding loop can sequence_expand by the scores it reads (the book's decoder)."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        (scores,) = _feeds(("scores", 1, "float32"))
        state = layers.data("state", [3], dtype="float32")
        zero = layers.fill_constant([1], "int64", 0)
        score_array, state_array = layers.array_write(scores, zero), layers.array_write(state, zero)
        read_scores, read_state = layers.array_read(score_array, zero), layers.array_read(state_array, zero)
        expanded = layers.sequence_expand(read_state, read_scores)
    assert (read_scores.lod_level, read_state.lod_level, expanded.lod_level) == (2, 0, 0)
    feed = {
        "scores": _lod([[-0.1], [-0.2], [-0.3]], [[2], [1, 2]], "float32"),
        "state": np.array([[1, 1, 1], [2, 2, 2]], dtype="float32"),
    }
    (out,) = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=[expanded], return_numpy=False)
    assert np.array(out)[:, 0].tolist() == [1, 2, 2]  # row i repeated by sequence i's length
    assert out.lod() == []  # a plain X gives a plain Out (Fluid's case 3)


def test_sequence_expand_of_a_plain_tensor_checks_its_rows():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        y = layers.data("y", [1], dtype="float32", lod_level=1)
        x = layers.data("x", [2], dtype="float32")
        out = layers.sequence_expand(x, y)
    feed = {"y": _lod([[0.0]] * 4, [[1, 3]], "float32"), "x": np.ones((3, 2), dtype="float32")}
    with pytest.raises(PeError, match="X has 3 rows but Y's LoD level has 2 sequences"):
        fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=[out])
