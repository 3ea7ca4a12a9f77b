"""The backward builder (pe_cli/training/grad_builder.py): a gradient summed from several parts."""

import pe_cli.fluid as fluid


def test_gradient_parts_take_fluids_names():
    """x read by two ops: the parts are x@GRAD@RENAME@block0@0 (the first written) and @1, and x@GRAD is
    written once, by their sum, as Fluid 1.8.5 names them (checked on the oracle)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [3])
        x.stop_gradient = False
        loss = fluid.layers.mean(fluid.layers.elementwise_add(fluid.layers.relu(x), fluid.layers.sigmoid(x)))
        fluid.backward.append_backward(loss)
    writers = [
        (op.type, op.input_arg_names, op.output_arg_names)
        for op in main.global_block().ops
        if any(n.startswith("x@GRAD") for n in op.output_arg_names)
    ]
    assert writers == [
        ("sigmoid_grad", ["sigmoid_0.tmp_0", "sigmoid_0.tmp_0@GRAD"], ["x@GRAD@RENAME@block0@0"]),
        ("relu_grad", ["relu_0.tmp_0", "relu_0.tmp_0@GRAD"], ["x@GRAD@RENAME@block0@1"]),
        ("sum", ["x@GRAD@RENAME@block0@0", "x@GRAD@RENAME@block0@1"], ["x@GRAD"]),
    ]
