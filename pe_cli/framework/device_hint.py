"""Fluid 1.8's ``device_guard``: the device an op built inside it is to run on, which Fluid records in
the op's ``op_device`` attribute (``core.op_proto_and_checker_maker.kOpDeviceAttrName()``). pe runs a
program's ops on the executor's place, so the hint is recorded and changes nothing else. As Fluid's
Operator: an op without a kernel of its own (a control-flow op, one holding a ``sub_block``) warns
that it is not placed, and a ``force_cpu`` given inside the guard warns that the guard wins."""

import warnings

_current = [None]


def current_device():
    return _current[0]


def switch_device(device):
    """Sets the device of the ops built from now on (None: none); returns the previous one."""
    previous, _current[0] = _current[0], device
    return previous


def mark(op_type, attrs, opdef):
    """Records the current device in ``attrs`` (an op's, before it is made), with Fluid's warnings."""
    device = _current[0]
    if device is None:
        return
    if "sub_block" not in opdef.attrs:  # ops with a kernel (a control-flow op holding a block has none)
        attrs["op_device"] = device
    else:
        warnings.warn(f"The Op({op_type}) is not support to set device.")
    force_cpu = attrs.get("force_cpu")
    if "force_cpu" in attrs and ((opdef.has("force_cpu_given") and force_cpu is not None) or force_cpu is not False):
        warnings.warn(
            f"The Attr(force_cpu) of Op({op_type}) will be deprecated in the future, please use "
            f"'device_guard' instead. 'device_guard' has higher priority when they are used at the "
            f"same time."
        )
