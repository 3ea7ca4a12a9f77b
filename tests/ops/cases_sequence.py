"""Op cases for the sequence ops over LoD input: sequence_pool (every pool type, an empty
sequence, a 2-level LoD), sequence_softmax. References follow Fluid's documented formulas."""

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor

rng = np.random.default_rng(12)


def lod_tensor(lengths, width, upper=None, dtype=np.float64, scale=1.0):
    """A LoDTensor of random rows (normal, times ``scale``) with these sequence lengths (and an upper
    level of lengths)."""
    x = (rng.normal(size=(sum(lengths), width) if width else (sum(lengths),)) * scale).astype(dtype)
    t = LoDTensor(x)
    t.set_recursive_sequence_lengths(([upper] if upper else []) + [lengths])
    return t


def batch_rows(t, reverse=False):
    """Fluid's batch order of a LoDTensor's rows (its LoDTensor2BatchFunctor, as Paddle's
    test_gru_op.py writes it): time step by time step, the sequences still running, longest first
    (ties in sequence order); ``reverse``: each sequence's steps from its end."""
    offs = t.lod()[-1]
    lengths = [b - a for a, b in zip(offs, offs[1:])]
    order = sorted(range(len(lengths)), key=lambda s: -lengths[s])
    return [
        offs[s] + (lengths[s] - 1 - n if reverse else n)
        for n in range(max(lengths, default=0))
        for s in order
        if lengths[s] > n
    ]


def sequences(t):
    x, offs = np.asarray(t), t.lod()[-1]
    return [x[a:b] for a, b in zip(offs, offs[1:])]


def pool_ref(i, a):
    kind, pad = a["pooltype"].upper(), a["pad_value"]
    rows = []
    for s in sequences(i["X"]):
        if len(s) == 0:
            rows.append(np.full(s.shape[1:], pad))
            continue
        rows.append(
            {
                "AVERAGE": lambda: s.mean(0),
                "SUM": lambda: s.sum(0),
                "SQRT": lambda: s.sum(0) / np.sqrt(len(s)),
                "MAX": lambda: s.max(0),
                "LAST": lambda: s[-1],
                "FIRST": lambda: s[0],
            }[kind]()
        )
    return {"Out": np.array(rows)}


def softmax_ref(i, a):
    parts = [np.exp(s - s.max()) / np.exp(s - s.max()).sum() for s in sequences(i["X"])]
    return {"Out": np.concatenate(parts).reshape(np.asarray(i["X"]).shape)}


CASES = [
    OpCase(
        "sequence_pool",
        {"X": lod_tensor([3, 1, 4], 5)},
        pool_ref,
        attrs={"pooltype": kind},
        grad=("X",),
        name=f"sequence_pool_{kind.lower()}",
        outputs=("Out", "MaxIndex") if kind == "MAX" else None,
        loss_outputs=("Out",),
    )
    for kind in ("AVERAGE", "SUM", "SQRT", "MAX", "LAST", "FIRST")
] + [
    OpCase(
        "sequence_pool",
        {"X": lod_tensor([2, 0, 3], 4)},
        pool_ref,
        attrs={"pooltype": "SUM", "pad_value": 0.5},
        grad=("X",),
        name="sequence_pool_empty_sequence",
    ),
    OpCase(
        "sequence_pool",
        {"X": lod_tensor([2, 3, 1], 3, upper=[2, 1])},
        pool_ref,
        attrs={"pooltype": "AVERAGE"},
        grad=("X",),
        name="sequence_pool_2level",
    ),
    OpCase("sequence_softmax", {"X": lod_tensor([3, 1, 4], 1)}, softmax_ref, grad=("X",), name="sequence_softmax"),
    OpCase("sequence_softmax", {"X": lod_tensor([2, 5], 0)}, softmax_ref, grad=("X",), name="sequence_softmax_1d"),
]
