# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_switch.py @ 1941b3a9a2ca92beea7d254d7f890b13f9ffab81
# Re-written for pe (same API calls in their Fluid 1.x spelling, same facts asserted), run with `pe fluid`.
from paddle.fluid import core, framework, layers
from paddle.fluid.executor import Executor
from paddle.fluid.framework import default_startup_program


def check_switch(value):
    x = layers.fill_constant(shape=[1], dtype="float32", value=value)
    zero_var = layers.fill_constant(shape=[1], dtype="float32", value=0.0)
    one_var = layers.fill_constant(shape=[1], dtype="float32", value=1.0)
    two_var = layers.fill_constant(shape=[1], dtype="float32", value=2.0)
    three_var = layers.fill_constant(shape=[1], dtype="float32", value=3.0)
    result = layers.create_global_var(shape=[1], value=-1.0, dtype="float32", persistable=True)
    with layers.Switch() as switch:
        with switch.case(layers.less_than(x, zero_var)):
            layers.assign(zero_var, result)
        with switch.case(layers.less_than(x, one_var)):
            layers.assign(one_var, result)
        with switch.case(layers.less_than(x, two_var)):
            layers.assign(two_var, result)
        with switch.default():
            layers.assign(three_var, result)
    exe = Executor(core.CPUPlace())
    exe.run(default_startup_program())
    return exe.run(feed={}, fetch_list=[result])[0][0]


# test_switch
for x, expected_result in {(-0.1, 0), (0.1, 1), (1.1, 2), (2.1, 3)}:
    main_program, startup_program = framework.Program(), framework.Program()
    with framework.program_guard(main_program, startup_program):
        result = check_switch(x)
        assert result == expected_result, (x, result, expected_result)

# TestSwitchCaseError: a case's condition must be a bool Variable
main_program, startup_program = framework.Program(), framework.Program()
with framework.program_guard(main_program, startup_program):
    cond = layers.fill_constant(shape=[1], dtype="float32", value=0.0)
    zero_var = layers.fill_constant(shape=[1], dtype="float32", value=0.0)
    result = layers.create_global_var(shape=[1], value=-1.0, dtype="float32", persistable=True)
    for condition in (1, cond):
        try:
            with layers.Switch() as switch:
                with switch.case(condition):
                    layers.assign(zero_var, result)
            raise AssertionError(f"Switch.case accepted {condition!r}")
        except TypeError:
            pass
print("ok")
