"""Names outside Fluid 1.8's public API that Paddle's own unit tests reach into (issue 52): paddle's
``tensor.clamp`` (2.0-beta's name of clip, bounds given as numbers or tensors), ``fluid.debugger``
(a program as text and as a DOT drawing) and ``paddle.dataset.common``'s ``download``, which takes a
file already in Paddle's cache and, pe downloading nothing, refuses a missing one."""

import hashlib
import os

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli import paddle
from pe_cli.fluid import debugger
from pe_cli.paddle.dataset import common


def test_clamp_takes_number_and_tensor_bounds():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [2, 5], "float32")
        lo, hi = fluid.data("lo", [1], "float32"), fluid.data("hi", [1], "float32")
        outs = [
            paddle.tensor.clamp(x, min=lo, max=hi),
            paddle.tensor.clamp(x, min=-0.5),
            paddle.tensor.clamp(x, max=hi),
            paddle.clip(x, lo, 0.25),
        ]
        with pytest.raises(TypeError, match="clamp: x 'i' is int8; it must be one of float16, float32, float64"):
            paddle.tensor.clamp(fluid.data("i", [2], "int8"), min=0.2, max=0.8)
        with pytest.raises(AssertionError, match=r"either min or max should be defined\."):
            paddle.tensor.clamp(x)
    data = np.linspace(-2, 2, 10, dtype="float32").reshape(2, 5)
    got = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"x": data, "lo": np.array([-1.0], "float32"), "hi": np.array([0.5], "float32")}, fetch_list=outs
    )
    for out, want in zip(got, [data.clip(-1, 0.5), data.clip(-0.5), data.clip(max=0.5), data.clip(-1, 0.25)]):
        np.testing.assert_array_equal(out, want)


def test_debugger_prints_the_program_and_writes_its_dot(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        loss = fluid.layers.mean(fluid.layers.fc(fluid.data("x", [None, 3], "float32"), 2))
        fluid.optimizer.SGD(0.1).minimize(loss)
    text = debugger.pprint_program_codes(main)
    assert "mul(" in text and "mul_grad(" in text and "sgd(" in text
    assert "mul(" in debugger.pprint_block_codes(main.global_block())
    assert "mul_grad(" not in debugger.pprint_block_codes(main.global_block())
    path = tmp_path / "block.dot"
    debugger.draw_block_graphviz(main.global_block(), path=str(path))
    dot = path.read_text()
    assert dot.startswith("digraph") and "mul_grad" in dot and dot.count("{") == dot.count("}")


def test_download_takes_the_cached_file_and_refuses_a_missing_one(tmp_path, monkeypatch):
    monkeypatch.setenv("PADDLE_DATA_HOME", str(tmp_path))
    folder = tmp_path / "flowers"
    folder.mkdir()
    (folder / "imagelabels.mat").write_bytes(b"labels")
    url = "http://paddlemodels.bj.bcebos.com/flowers/imagelabels.mat"
    path = common.download(url, "flowers", "e0620be6f572b9609742df49c70aed4d")
    assert path == os.path.join(str(folder), "imagelabels.mat")
    assert common.md5file(path) == hashlib.md5(b"labels").hexdigest()
    assert common.download(url, "flowers", "0" * 32, save_name="imagelabels.mat") == path
    with pytest.raises(
        RuntimeError,
        match=r"setid\.mat is absent and pe downloads nothing: put the file from "
        r"http://\S+/setid\.mat there",
    ):
        common.download("http://paddlemodels.bj.bcebos.com/flowers/setid.mat", "flowers", "a" * 32)


def test_fluid_op_keeps_the_0x_loop_factories_as_refusals():
    from pe_cli.base.errors import FluidUnsupported
    from pe_cli.fluid import op

    for name, use in (("DynamicRecurrentOp", "DynamicRNN"), ("RecurrentOp", "StaticRNN"), ("CondOp", "cond")):
        with pytest.raises(FluidUnsupported, match=f"paddle.fluid.op.{name}: .*{use}"):
            getattr(op, name)(type="dynamic_recurrent")


def test_sort_alpha_form_and_argsort_type_error():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [2, 3], "float32")
        res = fluid.data("res", [2, 3], "float32")
        values, ids = paddle.tensor.sort(input=x, out=res, descending=True)  # Paddle 2.0-alpha's form
        plain = paddle.sort(x, axis=0)
        with pytest.raises(TypeError, match="argsort: input must be Variable, got list"):
            fluid.layers.argsort(input=[1])
        with pytest.raises(
            TypeError, match=r"paddle\.sort: give the tensor to sort as x \(or, Paddle 2\.0-alpha's form, input=\)"
        ):
            paddle.sort()
    data = np.array([[3, 1, 2], [0, 5, 4]], "float32")
    got = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"x": data, "res": np.zeros((2, 3), "float32")}, fetch_list=[res, values, ids, plain]
    )
    np.testing.assert_array_equal(got[0], -np.sort(-data, axis=1))
    np.testing.assert_array_equal(got[1], got[0])
    np.testing.assert_array_equal(got[2], np.argsort(-data, axis=1, kind="stable"))
    np.testing.assert_array_equal(got[3], np.sort(data, axis=0))
