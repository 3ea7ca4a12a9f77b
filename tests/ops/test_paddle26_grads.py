"""pe's gradients of the op types added from Paddle 2.6's op set against Paddle 2.6.2's recorded ones
(tests/data/paddle_oracle/ops26.json, tools/paddle26_op_oracle.py): the gradient of sum(Out * W) for W the
recorder's fixed weights, through the op's registered grad maker, equals what Paddle's grad op gave (where a
grad op is no derivative, at a kink or a clip, Paddle's value is the one pe must give)."""

import importlib.util
import os

import numpy as np
import pytest

from pe_cli.executor import Executor, Scope
from pe_cli.framework import Program, program_release
from pe_cli.base.places import CPUPlace
from pe_cli.training.backward import append_backward
from tests.ops.paddle26 import RECORDED, array, op_case

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _tool(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "tools", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_cases = _tool("paddle26_op_cases")
CASES = {**_cases.CASES, **_tool("paddle26_semantics_cases").CASES}

GRAD_CASES = sorted(n for n, r in RECORDED.items() if r["grads"])

# (case, input slot, index) where Paddle 2.6.2's grad op is not the derivative of its forward and pe's is (pe's
# checked against finite differences by test_ops.py; docs/COMPAT.md): the reversed direction's W_hh of an LSTM
# over sequences of different lengths (layers 0 and 1; every other gradient of the case is Paddle's to 1e-15)
NOT_PADDLES = {
    **{
        ("rnn_lstm_bidirec_lengths", "WeightList", i): "Paddle's rnn_grad, reversed direction, padded steps"
        for i in (3, 7)
    },
    # lower + transpose + unitriangular together: Paddle's X@GRAD keeps the diagonal and the first
    # superdiagonal (each of the three alone is Paddle's: triangular_solve_lower_t, _unit)
    ("triangular_solve_lower_t_unit", "X", 0): "Paddle's triangular_solve_grad's mask",
}

# batched eigh: Paddle 2.6.2's eigh_grad gives every matrix of the batch the first one's eigenvalue gradient
# (the later matrices' X@GRAD off by V diag(dw_0 - dw_i) V^T): compared on the first matrix alone
FIRST_MATRIX_ONLY = {"eigh_upper", "eigh_vectors"}


def test_every_case_recorded():
    assert sorted(RECORDED) == sorted(CASES), "rerun tools/paddle26_op_oracle.py on Paddle 2.6.2"


def pe_grads(name):
    case = op_case(name, RECORDED[name])
    grad_slots = tuple(RECORDED[name]["grads"])
    program = Program()
    block = program.global_block()
    feed, names = {}, {}
    for slot, value in case.inputs.items():
        values = value if isinstance(value, list) else [value]
        names[slot] = [f"{slot}_{i}" for i in range(len(values))]
        for n, v in zip(names[slot], values):
            block.create_var(
                name=n, shape=v.shape, dtype=v.dtype.name, is_data=True, stop_gradient=slot not in grad_slots
            )
            feed[n] = v
    outs = {}
    for slot in [o if isinstance(o, str) else o[0] for o in CASES[name]["outputs"]]:
        count = (case.num_outputs or {}).get(slot)
        outs[slot] = [f"out_{slot}"] if count is None else [f"out_{slot}_{i}" for i in range(count)]
        for n in outs[slot]:
            block.create_var(name=n)
    with program_release.reductions_0d(case.zero_dim), program_release.paddle2_meanings(case.paddle2):
        block.append_op(case.op, names, outs, dict(case.attrs))
    terms = []
    for slot, ns in outs.items():
        if slot not in RECORDED[name]["outputs"] or slot not in (RECORDED[name].get("loss") or [slot]):
            continue  # a workspace (XShape, rnn's Reserve), or an output the case's loss leaves out
        for n, rec in zip(ns, RECORDED[name]["outputs"][slot]):
            if "float" not in rec["dtype"]:
                continue
            w = _cases.weights(tuple(rec["shape"]))  # the recorded Out's shape (known at run time only)
            block.create_var(name=f"w_{n}", shape=w.shape, dtype="float64", is_data=True, stop_gradient=True)
            feed[f"w_{n}"] = w
            for op, ins, out, attrs in (
                ("elementwise_mul", {"X": [n], "Y": [f"w_{n}"]}, f"p_{n}", {}),
                ("reduce_sum", {"X": [f"p_{n}"]}, f"t_{n}", {"reduce_all": True}),
            ):
                block.create_var(name=out)
                block.append_op(op, ins, {"Out": [out]}, attrs)
            terms.append(f"t_{n}")
    block.create_var(name="loss")
    block.append_op("sum", {"X": terms}, {"Out": ["loss"]})
    append_backward(block.var("loss"), parameter_list=[])
    fetch = [f"{n}@GRAD" for s in grad_slots for n in names[s]]
    return dict(zip(fetch, Executor(CPUPlace()).run(program, feed=feed, fetch_list=fetch, scope=Scope())))


@pytest.mark.parametrize("name", GRAD_CASES)
def test_gradient_equals_paddle(name):
    got = pe_grads(name)
    for slot, recs in RECORDED[name]["grads"].items():
        for i, rec in enumerate(recs):
            if (name, slot, i) in NOT_PADDLES:
                continue
            want = array(rec)
            mine = got[f"{slot}_{i}@GRAD"]
            if name in FIRST_MATRIX_ONLY:
                want, mine = want[:1], mine[:1]
            assert mine.shape == want.shape, f"{name}: {slot}#{i} gradient shape {mine.shape}, Paddle's {want.shape}"
            np.testing.assert_allclose(mine, want, rtol=1e-9, atol=1e-12, err_msg=f"{name}: {slot}#{i} gradient")
