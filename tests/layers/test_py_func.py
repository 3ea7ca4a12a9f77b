"""fluid.layers.py_func (pe_cli/layers/py_func.py, op in pe_cli/ops/py_func.py): the function sees
LoDTensors (values and LoD), its results are checked against the declared outputs, and mistakes are
one-line errors naming what to do. Training through a py_func is tests/compat/fluid_py_func_op.py."""

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.base.errors import PeError


def _run(build, feed):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        fetch = build(main.current_block())
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    return exe.run(main, feed=feed, fetch_list=fetch)


def test_the_function_sees_lod_tensors_and_its_results_are_cast_to_the_declared_dtype():
    seen = {}

    def lengths(words):
        seen["lod"], seen["rows"] = words.lod(), words.shape()
        return np.diff(words.lod()[0]).reshape(-1, 1)  # int64 lengths, for a float32 output

    def build(block):
        words = fluid.data("words", [None, 1], dtype="int64", lod_level=1)
        out = block.create_var(name="lengths", shape=[-1, 1], dtype="float32")
        return [fluid.layers.py_func(lengths, words, out)]

    words = fluid.create_lod_tensor(np.arange(6).reshape(6, 1), [[2, 1, 3]], fluid.CPUPlace())
    (got,) = _run(build, {"words": words})
    assert seen == {"lod": [[0, 2, 3, 6]], "rows": [6, 1]}
    assert got.dtype == np.float32 and got.reshape(-1).tolist() == [2.0, 1.0, 3.0]


def test_a_result_of_another_shape_or_count_is_named():
    def build(block):
        x = fluid.data("x", [None, 3])
        out = block.create_var(name="y", shape=[-1, 3], dtype="float32")
        return [fluid.layers.py_func(lambda v: np.ones((2, 4)), x, out)]

    with pytest.raises(PeError, match=r"returned \[2, 4\] for 'y', declared \[-1, 3\]"):
        _run(build, {"x": np.zeros((2, 3), "float32")})


def test_an_output_without_shape_and_a_stray_skip_var_are_refused_at_build_time():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.data("x", [None, 3])
        other = fluid.data("other", [None, 3])
        shapeless = fluid.default_main_program().current_block().create_var(name="out", dtype="float32")
        with pytest.raises(PeError, match=r"outputs \['out'\] have no shape"):
            fluid.layers.py_func(np.tanh, x, shapeless)
        out = fluid.default_main_program().current_block().create_var(name="out2", shape=[-1, 3], dtype="float32")
        with pytest.raises(PeError, match=r"skip_vars_in_backward_input \['other'\] are neither"):
            fluid.layers.py_func(np.tanh, x, out, backward_func=lambda *a: None, skip_vars_in_backward_input=other)
