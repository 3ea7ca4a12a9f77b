"""fluid.backward's helpers that Paddle's test_backward calls, and core.infer_no_need_buffer_slots."""

import pe_cli.fluid as fluid
from pe_cli.fluid import backward, core


def _net():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data(name="x", shape=[4, 3], dtype="float32")
        label = fluid.data(name="label", shape=[4, 1], dtype="float32")
        hidden = fluid.layers.fc(x, size=2, act="relu")
        fluid.layers.fc(x, size=5)  # a branch the loss does not read
        pred = fluid.layers.fc(hidden, size=1)
        loss = fluid.layers.mean(fluid.layers.square_error_cost(pred, label))
    return main, loss


def test_stop_gradients_and_op_path():
    main, loss = _net()
    assert backward._get_stop_gradients_(main)[0] == {"x@GRAD", "label@GRAD"}
    path = backward._find_op_path_(main.global_block(), [loss], [], set())
    assert [op.type for op in path] == [
        "mul",
        "elementwise_add",
        "relu",
        "mul",
        "elementwise_add",
        "elementwise_sub",
        "square",
        "mean",
    ]
    assert backward._find_no_grad_vars(main.global_block(), path, [loss], set()) == set()
    assert backward._strip_grad_suffix_("w@GRAD@RENAME@1") == "w"


def test_op_path_from_inputs_adds_stop_gradient_reads():
    main, loss = _net()
    block = main.global_block()
    hidden = next(op for op in block.ops if op.type == "relu").output("Out")[0]
    no_grad = set()
    path = backward._find_op_path_(block, [loss], [block.var(hidden)], no_grad)
    assert [op.type for op in path] == ["mul", "elementwise_add", "elementwise_sub", "square", "mean"]
    assert no_grad == {"label"}  # read on the way, stop_gradient, not reached from the input


def test_infer_no_need_buffer_slots():
    ins = {"X": ["a"], "Y": ["b"], "Out": ["c"], "Out@GRAD": ["d"]}
    assert core.infer_no_need_buffer_slots("elementwise_add_grad", ins, {}, {}) == {"X", "Y"}
    assert core.infer_no_need_buffer_slots("elementwise_mul_grad", ins, {}, {}) == set()  # reads values
    assert core.infer_no_need_buffer_slots("elementwise_add", {"X": ["a"], "Y": ["b"]}, {}, {}) == set()
