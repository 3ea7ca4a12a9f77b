"""paddle.inference (pe_cli/paddle/inference.py): Config and create_predictor run a model
paddle.static.save_inference_model wrote, through input and output handles, and give what the
training program's executor gave; a handle with no value and an unknown name are one-line errors."""

import os

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.base.errors import PeError
from pe_cli.executor.scope import Scope

S = paddle.static


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    prefix = os.path.join(str(tmp_path_factory.mktemp("infer")), "mlp")
    main, startup = S.Program(), S.Program()
    with S.program_guard(main, startup):
        x = S.data("x", [None, 4], "float32")
        y = paddle.nn.functional.relu(paddle.nn.Linear(4, 3)(x))
        z = paddle.nn.functional.softmax(y)
    exe = S.Executor(paddle.CPUPlace())
    feed = np.random.RandomState(0).randn(5, 4).astype("float32")
    with S.scope_guard(Scope()):
        exe.run(startup)
        want = exe.run(main, feed={"x": feed}, fetch_list=[y, z])
        S.save_inference_model(prefix, [x], [y, z], exe, program=main)
    return prefix, feed, want


def test_predictor_through_handles_gives_the_programs_outputs(saved):
    prefix, feed, want = saved
    config = paddle.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    config.disable_mkldnn()
    config.switch_ir_optim(False)
    predictor = paddle.inference.create_predictor(config)
    assert predictor.get_input_names() == ["x"]
    handle = predictor.get_input_handle("x")
    handle.reshape([5, 4])
    handle.copy_from_cpu(feed.reshape(-1))
    assert handle.shape() == [5, 4]
    predictor.run()
    outs = [predictor.get_output_handle(n).copy_to_cpu() for n in predictor.get_output_names()]
    assert len(outs) == 2
    for got, exp in zip(outs, want):
        np.testing.assert_allclose(got, exp, rtol=1e-6, atol=1e-7)
    assert predictor.get_output_handle(predictor.get_output_names()[1]).type() == paddle.inference.DataType.FLOAT32
    # run(list of arrays) returns the outputs; a clone runs in a scope of its own.
    again = predictor.clone().run([feed[:2]])
    np.testing.assert_allclose(again[1], want[1][:2], rtol=1e-6, atol=1e-7)


def test_missing_value_and_unknown_name_are_one_line_errors(saved):
    prefix = saved[0]
    predictor = paddle.inference.create_predictor(paddle.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    with pytest.raises(PeError, match="input 'x' holds no value"):
        predictor.run()
    with pytest.raises(ValueError, match="no input named 'y'"):
        predictor.get_input_handle("y")
    with pytest.raises(PeError, match="holds no value yet"):
        predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()
    with pytest.raises(TypeError, match="Config"):
        paddle.inference.create_predictor(prefix)
