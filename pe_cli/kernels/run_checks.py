"""The checks of an op's inputs that Fluid 1.8 makes when the op runs, not when it is built: its compile-time
InferShape skips them (a declared dtype or lod_level is no fact yet: a program may declare an index float64
and feed int64, or declare a sequence input without its lod_level and feed a LoDTensor). An op registered
with ``run_dtypes={slot: dtypes, or attrs -> dtypes / None}`` or ``run_lod={slot: None or a lengths slot}``
(ops/define.py) runs its kernel, on every device, after its values' dtypes and LoD are checked here, each
refusal one line naming the slot and what it takes (an EnforceNotMet, as Fluid's core raises)."""
from ..base.errors import EnforceNotMet


def _dtype_name(value):
    dtype = getattr(value, "dtype", None)
    return None if dtype is None else getattr(dtype, "name", str(dtype))


def _check_dtypes(opdef, ins, attrs):
    for slot, allowed in opdef.run_dtypes.items():
        allowed = allowed(attrs) if callable(allowed) else allowed       # (per attributes: soft_label's)
        value = ins.get(slot) if allowed else None
        for v in value if isinstance(value, list) else [value]:
            name = _dtype_name(v)
            if name is not None and name not in allowed:
                raise EnforceNotMet(f"{opdef.type}: {slot} holds {name} values; it takes {' or '.join(allowed)}")


def _check_lod(opdef, ins, attrs):
    lods = attrs.get("_lod") or {}
    for slot, lengths in opdef.run_lod.items():
        if ins.get(slot) is None or (lengths and ins.get(lengths) is not None):
            continue
        lod = lods.get(slot)
        if not lod or (isinstance(lod, list) and not all(lod)):
            raise EnforceNotMet(f"{opdef.type}: {slot} has no LoD; it takes sequences (feed a LoDTensor"
                                + (f", or give {lengths}" if lengths else "") + ")")


def checked(kernel, opdef):
    """``kernel`` with ``opdef``'s run-time checks (run_dtypes, run_lod) before it."""
    def run(ins, attrs):
        _check_dtypes(opdef, ins, attrs)
        if opdef.run_lod:
            _check_lod(opdef, ins, attrs)
        return kernel(ins, attrs)
    run.__name__ = getattr(kernel, "__name__", "kernel")
    return run
