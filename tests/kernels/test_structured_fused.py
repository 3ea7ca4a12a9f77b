"""The fused ops' structured kernels (shapes/fused.py, shapes/linalg_fused.py, shapes/attention.py,
shapes/normalization_activated.py, shapes/position.py; their out-kernels in kernels/cpu/): each op and grad op
writes every element of the buffers it is handed (a list output's too; a ``fresh`` variant: new C-contiguous arrays
of its own), with the op kernel's bits and the op case's reference values; a step decides its Meta once per shape
signature."""

import numpy as np

from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry

rng = np.random.default_rng(31)


def _fill(spec, fill):
    if type(spec) is list:
        return [_fill(s, fill) for s in spec]
    shape, dtype = spec
    return np.full(shape, fill if np.dtype(dtype).kind in "fc" else 77, dtype)


def _run(op, ins, attrs, ctx):
    """The op's meta rule and out-kernel into output and scratch buffers of two sentinel patterns: its outputs, each
    the buffer handed (a fresh variant's: a new array sharing no input's memory), every element written."""
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, ctx)
    arrays = [v for vs in ins.values() for v in (vs if isinstance(vs, list) else [vs]) if isinstance(v, np.ndarray)]
    answers = []
    for fill in (np.nan, -7.25):
        outs = {
            slot: _fill(spec, fill) for slot, spec in {**({} if meta.fresh else meta.outputs), **meta.scratch}.items()
        }
        for slot, src in meta.aliases.items():
            outs[slot] = ins[src]
        given = dict(outs)
        args = (ins, outs, dict(attrs), meta) + ((ctx,) if getattr(structured.cpu, "takes_context", False) else ())
        assert structured.cpu(*args) is None, f"{op}: the out-kernel returned something"
        assert all(outs[s] is b for s, b in given.items()), f"{op}: an output is not the buffer it was handed"
        for slot in meta.outputs if meta.fresh else ():
            for value in outs[slot] if type(outs[slot]) is list else [outs[slot]]:
                assert not any(np.shares_memory(value, v) for v in arrays if slot not in meta.aliases)
        answers.append(outs)
    result = {}
    for slot, spec in meta.outputs.items():
        a, b = answers[0][slot], answers[1][slot]
        for x, y, (shape, dtype) in zip(*(v if type(v) is list else [v] for v in (a, b, spec))):
            assert x.shape == tuple(shape) and x.dtype == dtype, (op, slot)
            assert x.tobytes() == y.tobytes(), f"{op} ({meta.variant}): {slot} not filled completely"
        result[slot] = a
    return result


def test_fc_of_no_rows_is_empty():
    """fc of an Input with no rows gives Out [0, N] (as mul would; the kernel before refused to reshape it)."""
    w, b = rng.uniform(-1, 1, (6, 5)), rng.uniform(-1, 1, (5,))
    for x in (np.zeros((0, 6)), np.zeros((0, 2, 3))):
        out = registry.get("fc").kernel("cpu")({"Input": x, "W": w, "Bias": b}, _attrs_with_defaults_of("fc"))["Out"]
        assert out.shape == (0, 5) and out.dtype == x.dtype
        assert _run("fc", {"Input": x, "W": w}, _attrs_with_defaults_of("fc"), KernelContext())["Out"].shape == (0, 5)


def _attrs_with_defaults_of(op, **attrs):
    return dict(registry.get(op).default_attrs(), **attrs)
