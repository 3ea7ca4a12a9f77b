"""paddle.text.viterbi_decode and ViterbiDecoder in a static program: Paddle 2.6's viterbi_decode op (pe refused
both, naming an op it had), its outputs Paddle 2.6.2's recorded values (tests/ops/cases_viterbi.py), its checks."""

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.base.errors import ArgumentTypeError
from pe_cli.executor.scope import Scope
from op_test import _attrs_with_defaults
from tests.ops.cases_viterbi import CASES

S = paddle.static


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
@pytest.mark.parametrize("as_layer", [False, True])
def test_viterbi_decode_builds_paddles_op_and_gives_its_values(paddle2, case, as_layer):
    attrs = _attrs_with_defaults(case)
    main = S.Program()
    with S.program_guard(main, S.Program()):
        x, t, n = (S.data(k, list(v.shape), str(v.dtype)) for k, v in case.inputs.items())
        if as_layer:
            scores, path = paddle.text.ViterbiDecoder(t, attrs["include_bos_eos_tag"])(x, n)
        else:
            scores, path = paddle.text.viterbi_decode(x, t, n, attrs["include_bos_eos_tag"])
    assert [op.type for op in main.global_block().ops] == ["viterbi_decode"]
    with S.scope_guard(Scope()):
        got = S.Executor(paddle.CPUPlace()).run(main, feed=dict(case.inputs), fetch_list=[scores, path])
    want = case.ref(case.inputs, attrs)
    np.testing.assert_allclose(got[0], want["Scores"], rtol=1e-6)
    np.testing.assert_array_equal(got[1], want["Path"])


def test_viterbi_decode_checks_its_arguments_as_paddle():
    with S.program_guard(S.Program(), S.Program()):
        x, t = S.data("x", [2, 3, 4], "float32"), S.data("t", [4, 4], "float32")
        with pytest.raises(ArgumentTypeError, match="viterbi_decode: length"):
            paddle.text.viterbi_decode(x, t, S.data("n32", [2], "int32"))
        with pytest.raises(ArgumentTypeError, match="viterbi_decode: include_tag must be bool"):
            paddle.text.viterbi_decode(x, t, S.data("n", [2], "int64"), include_bos_eos_tag=1)
