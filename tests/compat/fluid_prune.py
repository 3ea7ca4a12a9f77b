# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_prune.py @ 028e494b953618cba58f49f6c002cd856d629b4a
# Re-written for pe (same API calls and facts), run with `pe fluid`: Program._prune and
# _prune_with_input, and Executor.run(use_prune=...) with and without an optimizer, on a Program and a
# CompiledProgram, pruning by fetches and by feeds. Left out: the cases that replace
# Executor._prune_program with a mock to count calls, and the later multi-optimizer and
# multi-program cases (Fluid 1.8's test_prune.py, run unchanged, has them). The error of a None
# target is Fluid 1.8.5's message (this commit's was "All targets of prune() ...").
import numpy as np
import paddle.fluid as fluid
import paddle.fluid.framework as framework


def net():
    x = fluid.layers.data(name="x", shape=[2], dtype="float32")
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    y = fluid.layers.fc(input=[x], size=2, act="softmax")
    loss = fluid.layers.cross_entropy(input=y, label=label)
    loss = fluid.layers.mean(x=loss)
    return x, y, label, loss


def build(fn):
    program, startup_program = framework.Program(), framework.Program()
    with fluid.program_guard(program, startup_program):
        out = fn()
    return program, startup_program, out


OPS = ["mul", "elementwise_add", "softmax", "cross_entropy2", "mean"]
program, _, (x, y, label, loss) = build(net)
block = program.global_block()
assert [op.type for op in block.ops] == OPS, [op.type for op in block.ops]
pruned = program._prune_with_input(feeded_var_names=[y.name, label.name], targets=[loss])
assert [op.type for op in pruned.global_block().ops] == ["cross_entropy2", "mean"]
assert [op.type for op in program._prune(targets=[loss]).global_block().ops] == OPS
assert [op.type for op in program._prune(targets=loss).global_block().ops] == OPS
try:
    program._prune(targets=None)
    raise AssertionError("targets=None was accepted")
except ValueError as e:
    assert str(e).startswith("All targets of Program._prune_with_input() can only be Variable or Operator")


def net1():
    x = fluid.layers.data(name="x", shape=[2], dtype="float32")
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    w_param_attrs = fluid.ParamAttr(
        name="fc_weight", learning_rate=0.5, initializer=fluid.initializer.Constant(1.0), trainable=True
    )
    y = fluid.layers.fc(input=[x], size=2, act="softmax", param_attr=w_param_attrs)
    loss1 = fluid.layers.mean(x=fluid.layers.cross_entropy(input=y, label=label))
    loss2 = fluid.layers.mean(x=fluid.layers.cross_entropy(input=y, label=label))
    loss1.persistable = True
    loss2.persistable = True
    return x, y, label, loss1, loss2, w_param_attrs


x_np = np.random.random(size=(10, 2)).astype("float32")
label_np = np.random.randint(1, size=(10, 1)).astype("int64")


def run_case(optimize, use_prune, feed_y=False, compiled=False):
    program, startup_program, scope = framework.Program(), framework.Program(), fluid.Scope()
    with fluid.scope_guard(scope), fluid.program_guard(program, startup_program):
        x, y, label, loss1, loss2, w_param_attrs = net1()
        if optimize:
            fluid.optimizer.SGD(learning_rate=0.5).minimize(loss1)
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup_program)
        weight_init = np.array(scope.find_var(w_param_attrs.name).get_tensor())
        target = program
        if compiled:
            target = fluid.CompiledProgram(program).with_data_parallel(loss_name=loss1.name, places=fluid.CPUPlace())
        feed = {y.name if feed_y else "x": x_np, "label": label_np}
        exe.run(target, feed=feed, fetch_list=[loss1.name], use_prune=use_prune)
        weight = np.array(scope.find_var(w_param_attrs.name).get_tensor())
        return (
            scope.find_var(loss1.name) is not None,
            scope.find_var(loss2.name) is not None,
            np.array_equal(weight_init, weight),
        )


assert run_case(False, False)[:2] == (True, True)  # not pruned: both losses computed
assert run_case(False, True) == (True, False, True)  # loss2 pruned, weight unchanged
assert run_case(True, True) == (True, False, False)  # the update is kept: weight changed
assert run_case(True, True, compiled=True) == (True, False, False)
assert run_case(False, True, feed_y=True) == (True, False, True)
try:
    run_case(True, True, feed_y=True)  # the update needs x, which is not fed
    raise AssertionError("a pruned training program without its input ran")
except Exception as e:
    assert "x" in str(e), e
print("ok")
