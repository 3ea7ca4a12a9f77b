"""``var[item]`` and ``var[item] = v`` in a Paddle 2.x static program where they differ from Fluid 1.8's
(values, shapes and gradients: tests/data/paddle_oracle/indexing26.json): item assignment raises Paddle
2.6's RuntimeError pointing at paddle.static.setitem; what Paddle 2.6.2 fails on is one line at build."""

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.base.errors import ArgumentTypeError


def _x():
    return paddle.static.data("x", [2, 3, 4], "float32")


def test_item_assignment_raises_paddles_runtime_error_naming_setitem(paddle2):
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = _x()
        with pytest.raises(RuntimeError, match=r"paddle\.static\.setitem\(x, indices, values\)"):
            x[0] = 1.0


@pytest.mark.parametrize(
    "build,says",
    [
        (lambda x: x[None, [0, 1]], "None beside a list"),
        (lambda x: x[[-1, 0]], "negative int"),
        (lambda x: x[np.array([True, False])], "must hold ints"),
        (lambda x: x[:, [0, 1], [[0], [1]]], "broadcast"),
        (lambda x: paddle.static.setitem(x, [0, 1], 3.0), "index_put"),
    ],
)
def test_what_paddle_26_fails_on_is_one_line_at_build(paddle2, build, says):
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        with pytest.raises(ArgumentTypeError, match=says) as e:
            build(_x())
    assert "\n" not in str(e.value)
