"""Each op's declared ``grad_reads`` (the forward slots whose values its grad ops read) equals what
its grad maker actually wires into the grad ops, over the op cases that check a gradient."""

from collections import defaultdict

import pytest

from op_test import build_program
from pe_cli.training import backward
from pe_cli.ops import registry
from tests.ops.test_ops import GRAD_CASES


def _wired_reads(case, monkeypatch):
    """The forward slots of ``case.op`` whose variables the grad maker passes to g.op(...)."""
    wired = set()
    real_op = backward.GradContext.op

    def recording_op(self, type, inputs, outputs, attrs=None):
        if self.fwd.type == case.op:
            read = {n for names in inputs.values() for n in (names or ()) if n is not None}
            for slots in (self.fwd.inputs, self.fwd.outputs):
                wired.update(slot for slot, names in slots.items() if read & set(names))
        return real_op(self, type, inputs, outputs, attrs)

    monkeypatch.setattr(backward.GradContext, "op", recording_op)
    out_slots = case.outputs or tuple(case.ref(case.inputs, _attrs(case)).keys())
    build_program(case, out_slots, with_loss=True)
    return wired


def _attrs(case):
    attrs = registry.get(case.op).default_attrs()
    attrs.update(case.attrs)
    return attrs


def _cases_by_op():
    by_op = defaultdict(list)
    for case in GRAD_CASES:
        by_op[case.op].append(case)
    return by_op


_BY_OP = _cases_by_op()


@pytest.mark.parametrize("op_type", sorted(_BY_OP))
def test_declared_grad_reads_are_what_the_grad_ops_read(op_type, monkeypatch):
    wired = set()
    for case in _BY_OP[op_type]:
        wired |= _wired_reads(case, monkeypatch)
    declared = set(registry.get(op_type).grad_reads)
    assert declared == wired, (
        f"{op_type}: grad_reads declares {sorted(declared)}, its grad maker reads "
        f"{sorted(wired)}; fix register(..., grad_reads=...) in pe_cli/ops/"
    )


def test_ops_without_a_gradient_declare_no_grad_reads():
    for op_type in registry.all_op_types():
        opdef = registry.get(op_type)
        if opdef.grad is None:
            assert opdef.grad_reads == (), f"{op_type} has no grad maker but declares grad_reads"
