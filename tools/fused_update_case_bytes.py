"""The fused update ops' results for tools/op_case_bytes.py's ``fused_optimizer`` family: fused_sgd, fused_momentum
and fused_adam called through their CPU kernels (``OpDef.kernel``) over lists of parameters in float32/64 (shapes
of their own, one parameter, empty values), row-sparse gradients, their update's attributes (nesterov, lazy_mode),
and in place (``update_in_place``: over copies of the inputs, each written array recorded, and whether it is its
input)."""

import zlib

import numpy as np


def _values(key, shape, dtype):
    return np.random.default_rng(zlib.crc32(key.encode())).uniform(-1, 1, size=shape).astype(dtype)


def _flat(outs, ins):
    flat = {}
    for slot, value in outs.items():
        src = ins.get(slot[: -len("Out")]) if slot.endswith("Out") else None
        for i, v in enumerate(value):
            flat[f"{slot}[{i}]"] = v
            flat[f"{slot}[{i}]|is_input"] = np.array(src is not None and v is src[i])
    return flat


def _run(results, record, direct, op, key, make, attrs):
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    o = registry.get(op)
    full = dict(o.default_attrs(), **attrs)
    for in_place in (False, True):
        ins = make()
        ctx = KernelContext(update_in_place=in_place)
        record(results, f"fused|{op}|{key}|{in_place}", lambda: _flat(direct(o, ins, full, ctx), ins))


def _params(key, shapes, dtype, sparse, states):
    from pe_cli.base.selected_rows import SelectedRows

    ins = {"Param": [], "Grad": [], **{s: [] for s in states}}
    for i, shape in enumerate(shapes):
        ins["Param"].append(_values(f"{key}|{i}|p", shape, dtype))
        if sparse and shape and shape[0]:
            rows = np.array([0, shape[0] - 1, 0], "int64")
            ins["Grad"].append(SelectedRows(rows, _values(f"{key}|{i}|g", (3,) + shape[1:], dtype), shape[0]))
        else:
            ins["Grad"].append(_values(f"{key}|{i}|g", shape, dtype))
        for s in states:
            one = s.endswith("Pow")
            v = np.array([0.9 if s == "Beta1Pow" else 0.999], dtype) if one else _values(f"{key}|{i}|{s}", shape, dtype)
            ins[s].append(np.abs(v) if s == "Moment2" else v)
    ins["LearningRate"] = np.array([0.05], dtype)
    return ins


_OPS = {
    "fused_sgd": ((), ({},)),
    "fused_momentum": (("Velocity",), ({"mu": 0.9}, {"mu": 0.5, "use_nesterov": True})),
    "fused_adam": (("Moment1", "Moment2", "Beta1Pow", "Beta2Pow"), ({}, {"lazy_mode": True, "beta1": 0.8})),
}


def fused_optimizer(results, record, direct):
    for op, (states, forms) in _OPS.items():
        for dt in ("float32", "float64"):
            for shapes in (((3, 4), (5, 2)), ((6,),), ((0, 3), (2, 2))):
                for sparse in (False, True):
                    for j, attrs in enumerate(forms):
                        key = f"{dt}|{shapes}|{sparse}|{j}"

                        def make(key=key, shapes=shapes, dt=dt, sparse=sparse):
                            return _params(f"{op}|{key}", shapes, dt, sparse, states)

                        _run(results, record, direct, op, key, make, attrs)
