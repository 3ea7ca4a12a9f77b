"""Where Paddle 2.6.2 refuses an axis of a 0-D tensor at build time (run on paddlepaddle==2.6.2 in a static
program: ``flip``, ``roll`` and ``index_select`` / ``index_add`` / ``repeat_interleave`` / ``diff`` along axis 0,
``normalize`` and ``quantile`` with an axis, ``squeeze`` / ``median`` / ``softmax`` / ``mean`` / ``cumsum`` /
``argmax`` along axis 1: their messages "in range [0, 0)", "should be in range [-1, 0]"), pe refuses it in
one line when the program is built, as a PeError (it had divided by zero, indexed past a tuple, or failed when
the program ran). Where Paddle 2.6 accepts an axis 0 or -1 of a 0-D tensor pe computes what Paddle does:
tests/paddle/test_paddle_function_oracle.py's axis_0d26 cases."""

import pytest

import pe_cli.paddle as paddle
from pe_cli.base.errors import PeError

F = paddle.nn.functional

REFUSED = {
    "flip": lambda s: paddle.flip(s, [0]),
    "roll": lambda s: paddle.roll(s, 1, axis=0),
    "index_select": lambda s: paddle.index_select(s, paddle.zeros([1], "int64"), axis=0),
    "index_add": lambda s: paddle.index_add(s, paddle.zeros([1], "int64"), 0, s),
    "repeat_interleave": lambda s: paddle.repeat_interleave(s, 2, axis=0),
    "diff": lambda s: paddle.diff(s),
    "normalize": lambda s: F.normalize(s, axis=0),
    "quantile": lambda s: paddle.quantile(s, 0.5, axis=0),
    "squeeze_1": lambda s: paddle.squeeze(s, axis=1),
    "median_1": lambda s: paddle.median(s, axis=1),
    "softmax_1": lambda s: F.softmax(s, axis=1),
    "mean_1": lambda s: paddle.mean(s, axis=1),
    "cumsum_1": lambda s: paddle.cumsum(s, axis=1),
    "argmax_1": lambda s: paddle.argmax(s, axis=1),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_axis_of_0d_refused_where_paddle_refuses(name):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        s = paddle.sum(paddle.static.data("x", [2, 3], "float32"))
        assert s.shape == ()
        with pytest.raises(PeError) as refused:
            REFUSED[name](s)
    message = str(refused.value)
    assert "\n" not in message and ("0-D" in message or "[]" in message), message
