"""The op cases recorded from Paddle 2.6.2 (tests/data/paddle_oracle/ops26.json and semantics26.json, written by
tools/paddle26_op_oracle.py from tools/paddle26_op_cases.py and paddle26_semantics_cases.py): each one an OpCase whose reference is Paddle's
recorded outputs (NaN and +-inf where Paddle has them), its gradient checked against finite differences by
test_ops.py and against Paddle's recorded gradients by test_paddle26_grads.py. ``recorded_cases(family)``
gives a family's cases (the ops whose kernel_module it is) for its cases_<family>.py."""

import json
import os

import numpy as np

from op_test import OpCase
from pe_cli.ops import registry

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "paddle_oracle")
PATHS = [os.path.join(DATA, "ops26.json"), os.path.join(DATA, "semantics26.json")]


def array(rec):
    if "complex" in rec["dtype"]:
        return np.array([complex(*v) for v in rec["values"]], dtype=rec["dtype"]).reshape(rec["shape"])
    values = [np.nan if v is None else v for v in rec["values"]]
    return np.array(values, dtype=rec["dtype"]).reshape(rec["shape"])


def _load(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    assert data["engine"] == "paddlepaddle 2.6.2", "rerun tools/paddle26_op_oracle.py on Paddle 2.6.2"
    return data["cases"]


RECORDED = {name: rec for path in PATHS for name, rec in _load(path).items()}


def _arrays(recs):
    return [array(r) for r in recs]


def op_case(name, rec):
    inputs = {
        s: _arrays(v) if registry.get(rec["op"]).input_slot(s).duplicable else array(v[0])
        for s, v in rec["inputs"].items()
    }
    outs = {s: _arrays(v) for s, v in rec["outputs"].items()}
    listed = {
        s: len(v)
        for s, v in outs.items()
        if registry.get(rec["op"]).outputs
        and next(o for o in registry.get(rec["op"]).outputs if o.name == s).duplicable
    }
    want = {s: v if s in listed else v[0] for s, v in outs.items()}
    if "XShape" in rec["slots"]:  # X's shape behind a 0, holding no data (Paddle's fetch has none)
        want["XShape"] = np.empty((0,) + inputs["X"].shape, inputs["X"].dtype)
    grad = () if rec["kink"] else tuple(s for s in rec["grads"])  # at a kink: Paddle's gradient only
    attrs = dict(rec["attrs"])
    opdef = registry.get(rec["op"])  # built in a Paddle 2.x program: a reduction to one value is 0-D (zero_dim),
    # an op computes Paddle 2.x's meaning where it differs (paddle2, framework/program_release.mark_paddle2)
    single = all(a.dtype not in (np.float32, np.complex64) for v in outs.values() for a in v)
    loss = tuple(rec["loss"]) if rec.get("loss") else None
    # outputs Paddle left unwritten (dropout_nd's Mask with is_test): built, not compared, out of the loss
    unwritten = tuple(s for s in rec["slots"] if s not in want and s not in ("Reserve", "DropoutState"))
    if unwritten and loss is None:
        loss = tuple(s for s in want if s != "XShape")
    return OpCase(
        rec["op"],
        inputs,
        lambda i, a, want=want: want,
        attrs=attrs,
        grad=grad,
        loss_outputs=loss,
        outputs=tuple(want) + unwritten,
        name=f"paddle26_{name}",
        num_outputs=listed or None,
        zero_dim=opdef.has("scalar_0d_in_paddle2"),
        paddle2=opdef.has("paddle2_semantics"),
        rtol=1e-9 if single else 1e-6,
        atol=1e-12 if single else 1e-7,
    )


def recorded_cases(family):
    """The recorded cases of the ops whose kernels are in kernels/<device>/<family>.py."""
    return [op_case(n, r) for n, r in sorted(RECORDED.items()) if registry.get(r["op"]).kernel_module == family]
