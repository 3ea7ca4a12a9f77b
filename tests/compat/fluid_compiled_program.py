# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_compiled_program.py @ 04bdaadc376b24d95d96542a52ee8ca929d757bd
# Re-written for pe (same API calls, same facts), run with `pe fluid`, in its Fluid 1.x form: the program
# seeds are set through Program.random_seed (1.8's spelling of paddle.seed), the loss is
# fluid.layers.cross_entropy, and simple_fc_net (simple_nets.py) and new_program_scope
# (test_imperative_base.py) are written out here. Facts: the loss of one step of simple_fc_net is
# bit-identical run as the Program, as a CompiledProgram and as a CompiledProgram with_data_parallel on
# one place; CompiledProgram rejects a non-Program; _compile refuses another scope (and, with CUDA,
# another place); share_vars_from a non-data-parallel or a never-run program is a ValueError.
import contextlib

import numpy as np

import paddle.fluid as fluid
from paddle.fluid import core

SEED = 100


@contextlib.contextmanager
def new_program_scope():
    main, startup, scope = fluid.Program(), fluid.Program(), fluid.Scope()
    with fluid.scope_guard(scope), fluid.program_guard(main, startup), fluid.unique_name.guard():
        yield


def simple_fc_net():
    image = fluid.layers.data(name="image", shape=[784], dtype="float32")
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    hidden = image
    for _ in range(2):
        hidden = fluid.layers.fc(
            hidden, size=100, act="relu", bias_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(value=1.0))
        )
    prediction = fluid.layers.fc(hidden, size=10, act="softmax")
    return fluid.layers.mean(fluid.layers.cross_entropy(input=prediction, label=label))


def place():
    return fluid.CUDAPlace(0) if core.is_compiled_with_cuda() else fluid.CPUPlace()


def one_step_loss(img, label, compile_with=None):
    """The loss of one training-free forward of simple_fc_net, seeded; run as the Program, or as the
    CompiledProgram compile_with(main, loss) makes of it."""
    with new_program_scope():
        fluid.default_startup_program().random_seed = SEED
        fluid.default_main_program().random_seed = SEED
        exe = fluid.Executor(place())
        loss = simple_fc_net()
        exe.run(fluid.default_startup_program())
        prog = fluid.default_main_program()
        if compile_with is not None:
            prog = compile_with(prog, loss)
        (loss_data,) = exe.run(prog, feed={"image": img, "label": label}, fetch_list=[loss.name])
        return loss_data[0]


def test_compiled_program(img, label):
    expected = one_step_loss(img, label)
    base = one_step_loss(img, label, lambda prog, loss: fluid.CompiledProgram(prog))
    np.testing.assert_array_equal(base, expected)
    parallel = one_step_loss(
        img,
        label,
        lambda prog, loss: fluid.CompiledProgram(prog).with_data_parallel(loss_name=loss.name, places=[place()]),
    )
    np.testing.assert_array_equal(parallel, expected)


def build_simple_model():
    img = fluid.layers.data(name="image", shape=[1, 28, 28], dtype="float32")
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    prediction = fluid.layers.fc(input=img, size=10, act="softmax")
    loss = fluid.layers.cross_entropy(input=prediction, label=label)
    fluid.layers.mean(loss)


def compile_program_not_compiled():
    with fluid.program_guard(fluid.Program()):
        build_simple_model()
        return fluid.CompiledProgram(fluid.default_main_program()).with_data_parallel()


def compile_program():
    with fluid.program_guard(fluid.Program()):
        build_simple_model()
        compiled_program = fluid.CompiledProgram(fluid.default_main_program())
        scope, cpu = fluid.global_scope(), fluid.CPUPlace()
        compiled_program._compile(scope, cpu)
        return compiled_program, scope, cpu


def assert_raises(exc_type, fn, *args):
    try:
        fn(*args)
    except exc_type:
        return
    raise AssertionError(f"{fn.__name__}{args} did not raise {exc_type.__name__}")


def test_errors():
    assert_raises(TypeError, fluid.CompiledProgram, "program")

    compiled_program, _, cpu = compile_program()
    assert_raises(ValueError, compiled_program._compile, core.Scope(), cpu)

    if core.is_compiled_with_cuda():
        compiled_program, scope, _ = compile_program()
        assert_raises(ValueError, compiled_program._compile, scope, fluid.CUDAPlace(0))

    for make_source in (lambda: compile_program()[0], compile_program_not_compiled):
        with fluid.program_guard(fluid.Program()):
            source_program = make_source()
            build_simple_model()
            compiled_program = fluid.CompiledProgram(fluid.default_main_program()).with_data_parallel(
                share_vars_from=source_program
            )
            assert_raises(ValueError, compiled_program._compile, fluid.global_scope(), fluid.CPUPlace())


np.random.seed(0)
IMG = np.random.random(size=(16, 784)).astype("float32")
LABEL = np.random.randint(low=0, high=10, size=[16, 1], dtype=np.int64)
test_compiled_program(IMG, LABEL)
test_errors()
print("ok")
