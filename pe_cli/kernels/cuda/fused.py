"""CUDA kernels of the fused ops: the unfused kernels in turn (elementwise_add, then the activation;
the activation's gradient, then elementwise_add's), so the numbers are the unfused ops' own. A fused
launch is left to do: on the GPU the pass saves no Python dispatch per op yet."""
from ..cpu.fused import _act_attrs
from . import activation, elementwise


def fused_elemwise_activation(ins, attrs):
    act, act_attrs = _act_attrs(attrs)
    pre = elementwise.elementwise_add({"X": ins["X"], "Y": ins["Y"]}, {"axis": attrs["axis"]})["Out"]
    out = getattr(activation, act)({"X": pre}, act_attrs)["Out"]
    return {"Out": out, "IntermediateOut": pre} if attrs["save_intermediate_out"] else {"Out": out}


def fused_elemwise_activation_grad(ins, attrs):
    act, act_attrs = _act_attrs(attrs)
    reads = "IntermediateOut" if ins.get("IntermediateOut") is not None else "Out"
    key = "Out" if reads == "Out" else "X"
    dpre = getattr(activation, f"{act}_grad")({key: ins[reads], "Out@GRAD": ins["Out@GRAD"]}, act_attrs)["X@GRAD"]
    # elementwise_add's gradient does not read Out's values, only its shape: X + Y's, as dpre's
    return elementwise.elementwise_add_grad({"X": ins["X"], "Y": ins["Y"], "Out": dpre, "Out@GRAD": dpre},
                                            {"axis": attrs["axis"]})
