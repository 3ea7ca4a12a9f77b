"""Paddle 2.x's collective ops run in a program of one process only: with nranks 2, or PADDLE_TRAINERS_NUM=2,
the run stops in one line (pe all-reduces across trainers itself), never a silent single-trainer answer."""

import numpy as np
import pytest

from op_test import OpCase, run_forward
from pe_cli.base.errors import PeError


def test_several_ranks_refused():
    case = OpCase("c_concat", {"X": np.ones((2, 2))}, lambda i, a: {"Out": i["X"]}, attrs={"nranks": 2})
    with pytest.raises(PeError, match="nranks"):
        run_forward(case)


def test_several_trainers_refused(monkeypatch):
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "2")
    case = OpCase("all_reduce", {"x": np.ones((2, 2))}, lambda i, a: {"out": i["x"]})
    with pytest.raises(PeError, match="PADDLE_TRAINERS_NUM=2"):
        run_forward(case)
