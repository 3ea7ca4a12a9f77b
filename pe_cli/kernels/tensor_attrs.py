"""Attributes given as tensors. Fluid 1.8 lets a program compute some attributes at run time: concat's
``axis`` from AxisTensor, slice's ``starts`` from StartsTensor (one int tensor holding the list) or
StartsTensorList (one one-value tensor per item), expand's ``expand_times`` ... An op registered with
``attr_tensors={slot: attr}`` (pe_cli/ops/define.py) runs its kernel, on every device, with those
attributes replaced by the values of the slots given: the values are read on the host, as Fluid's
kernels read them. A duplicable slot gives a list (one item per tensor); a single slot gives a list
when the attribute is a list, else its one value; values are floats where the attribute is a float,
else ints. A single slot overrides a list slot of the same
attribute (Fluid's order: StartsTensor, then StartsTensorList, then the attribute)."""

import importlib

import numpy as np

from .context import wraps


def _host(device):
    if device == "cpu":
        return np.asarray
    return importlib.import_module(f"pe_cli.kernels.{device}.runtime").to_host


def values_of(ins, attrs, attr_tensors, host=np.asarray):
    """``attrs`` with the attributes of ``attr_tensors`` ({slot: attr}) that ``ins`` gives by tensor
    replaced by their values."""
    given = {}
    for slot, attr in sorted(attr_tensors.items(), key=lambda kv: not isinstance(ins.get(kv[0]), list)):
        value = ins.get(slot)
        if value is None or (isinstance(value, list) and not value):
            continue
        kind = _kind(attrs.get(attr))
        if isinstance(value, list):
            given[attr] = [kind(np.asarray(host(v)).reshape(-1)[0]) for v in value]
        else:
            items = [kind(v) for v in np.asarray(host(value)).reshape(-1)]
            given[attr] = items if isinstance(attrs.get(attr), (list, tuple)) else items[0]
    return dict(attrs, **given) if given else attrs


def _kind(current):
    """The type a tensor's values take for an attribute whose value (or default) is ``current``: float
    or int as the attribute is (a list: ints), as Fluid's kernels cast them; the tensor's own where the
    attribute has none (None)."""
    if isinstance(current, float):
        return float
    if isinstance(current, (int, list, tuple)) and not isinstance(current, bool):
        return int
    return lambda v: v.item()


def from_tensors(kernel, device, attr_tensors):
    """``kernel`` wrapped to take the attributes of ``attr_tensors`` from the tensors given for them."""
    host = _host(device)

    def run(ins, attrs, *ctx):
        return kernel(ins, values_of(ins, attrs, attr_tensors, host), *ctx)

    return wraps(kernel, run)
