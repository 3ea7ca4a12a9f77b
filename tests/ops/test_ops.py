"""Every op case: forward against numpy, gradient against float64 finite differences."""

import importlib
import pkgutil

import pytest

import tests.ops as _pkg
from op_test import check_forward, check_grad


def all_cases():
    cases = []
    for info in pkgutil.iter_modules(_pkg.__path__):
        if info.name.startswith("cases_"):
            cases += importlib.import_module(f"tests.ops.{info.name}").CASES
    return cases


CASES = all_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_forward(case):
    check_forward(case)


GRAD_CASES = [c for c in CASES if c.grad]


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c.id for c in GRAD_CASES])
def test_gradient(case):
    check_grad(case)
