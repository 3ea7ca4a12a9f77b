"""paddle.fluid.proto's message modules (framework_pb2, profiler_pb2) and what uses them:
op protos of the registry, OpDescCreationMethod, the profile file pe writes read back."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.fluid import op
from pe_cli.fluid import runner
from pe_cli.fluid.proto import framework_messages as framework_pb2
from pe_cli.fluid.proto.profiler import messages as profiler_pb2
from pe_cli.io.fluid_profile import profile_bytes


def test_framework_pb2_round_trips_with_fluid_numbers():
    assert runner.pe_module_for("paddle.fluid.proto.framework_pb2") == framework_pb2.__name__
    assert runner.pe_module_for("paddle.fluid.proto.profiler.profiler_pb2") == profiler_pb2.__name__
    desc = framework_pb2.OpDesc(type="scale")
    desc.attrs.add(name="scale", type=framework_pb2.FLOAT, f=2.0)
    assert framework_pb2.FLOAT == 1 and framework_pb2.LONGS == 11
    assert framework_pb2.OpDesc.FromString(desc.SerializeToString()) == desc
    assert framework_pb2.VarType.FP32 == 5


def test_registry_protos_and_op_desc_creation():
    protos = {p.type: p for p in op.get_all_op_protos()}
    assert all(p.IsInitialized() for p in protos.values())
    scale = protos["scale"]
    assert [v.name for v in scale.inputs][:1] == ["X"] and "scale" in [a.name for a in scale.attrs]
    desc = op.OpDescCreationMethod(protos["sum"])(X=["a", "b"], Out="z")
    assert (desc.type, list(desc.inputs[0].arguments), list(desc.outputs[0].arguments)) == ("sum", ["a", "b"], ["z"])
    made = op.OpDescCreationMethod(scale)(X="x", Out="y", scale=np.float32(3.0).item())
    assert [(a.name, a.f) for a in made.attrs] == [("scale", 3.0)]
    with pytest.raises(ValueError, match="only one input"):
        op.OpDescCreationMethod(scale)(X=["a", "b"])
    with pytest.raises(TypeError, match=r"Type of op_proto should be OpProto in PaddlePaddle\."):
        op.OpDescCreationMethod("scale")
    assert str(op.Operator("sum", X=["a", "b"], Out="z")) == "Op(sum), inputs:{X[a, b]}, outputs:{Out[z]}."


def test_profile_file_reads_with_profiler_pb2():
    profile = profiler_pb2.Profile.FromString(profile_bytes([("mul", 10, 20, 1)], 5, 30))
    (event,) = profile.events
    assert (event.name, event.end_ns, event.type, profile.end_ns) == ("mul", 20, profiler_pb2.Event.CPU, 30)


def test_weighted_average_takes_a_fetched_count():
    avg = fluid.average.WeightedAverage()
    avg.add(value=np.array([0.5]), weight=np.array([4], dtype="int32"))
    avg.add(value=1.0, weight=4)
    np.testing.assert_allclose(avg.eval(), [0.75])
    with pytest.raises(ValueError, match=r"The 'weight' must be a number\(int, float\)\."):
        avg.add(value=1.0, weight=np.array([1, 2]))


def test_paddle_base_proto_and_core_operator_from_a_desc():
    """Paddle 2.6's paddle.base.proto.framework_pb2 (a from-import too), and its test helper's path:
    core.get_all_op_protos() bytes -> OpDescCreationMethod -> core.Operator.create(bytes) -> run."""
    from pe_cli.fluid import core
    from pe_cli.fluid.proto import framework_pb2 as by_attribute

    assert runner.pe_module_for("paddle.base.proto.framework_pb2") == framework_pb2.__name__
    assert by_attribute is framework_pb2
    protos = {p.type: p for p in map(framework_pb2.OpProto.FromString, core.get_all_op_protos())}
    assert core.get_op_extra_attrs("scale") == {}
    desc = op.OpDescCreationMethod(protos["scale"])(X="x", Out="y", scale=3.0)
    scale = core.Operator.create(desc.SerializeToString())
    assert (scale.type(), scale.attrs["scale"], scale.input("X")) == ("scale", 3.0, ["x"])
    scope = core.Scope()
    scope.var("x").get_tensor().set(np.array([1.0, 2.0], np.float32), core.CPUPlace())
    scope.var("y")
    scale.run(scope, core.CPUPlace())
    np.testing.assert_array_equal(np.array(scope.find_var("y").get_tensor()), [3.0, 6.0])
