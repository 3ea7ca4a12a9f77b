"""Paddle 2.6's random state (paddle.get_rng_state / set_rng_state, the CUDA pair) over pe's default
generator, and the small framework names: paddle.int16, paddle.bfloat16 (refused where used),
check_shape, set_printoptions, disable_signal_handler."""

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.base.errors import ArgumentTypeError, PeError
from pe_cli.fluid.core import get_cuda_device_count


def _draw():
    """A new program's unseeded uniform draws (its random op takes its stream's seed from the generator)."""
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        out = paddle.uniform([4])
    return paddle.static.Executor(paddle.CPUPlace()).run(main, fetch_list=[out])[0]


def test_set_rng_state_repeats_the_draws_after_get_rng_state():
    paddle.seed(7)
    state = paddle.get_rng_state()
    assert isinstance(state, list) and len(state) == 1
    first, second = _draw(), _draw()
    assert not np.array_equal(first, second)
    paddle.set_rng_state(state)
    np.testing.assert_array_equal(_draw(), first)
    np.testing.assert_array_equal(_draw(), second)
    with pytest.raises(ValueError, match="Length of cpu state list"):
        paddle.set_rng_state(state * 2)


def test_cuda_rng_state_is_one_per_cuda_device():
    states = paddle.get_cuda_rng_state()
    assert len(states) == get_cuda_device_count()  # [] without CUDA, as Paddle
    paddle.set_cuda_rng_state(states)  # the same list back: accepted


def test_int16_and_the_refused_bfloat16():
    paddle.enable_static()
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        assert paddle.static.data("x", [2], paddle.int16).dtype == "int16"
        with pytest.raises(PeError, match=r"^paddle.bfloat16: pe has no bfloat16 dtype"):
            paddle.static.data("y", [2], paddle.bfloat16)
    assert int(paddle.bfloat16) == 22 and int(paddle.complex64) == 23 and int(paddle.complex128) == 24


def test_check_shape_set_printoptions_disable_signal_handler():
    paddle.check_shape([2, 3], "fill_constant")
    with pytest.raises(ArgumentTypeError, match="fill_constant"):
        paddle.check_shape([2, 3.5], "fill_constant")
    with pytest.raises(ArgumentTypeError, match=r"fill_constant: shape must be list\|tuple\|Variable, got str"):
        paddle.check_shape("2", "fill_constant")
    paddle.set_printoptions(precision=4, sci_mode=True)
    assert paddle.tensor.to_string.DEFAULT_PRINT_OPTIONS.precision == 4
    with pytest.raises(ArgumentTypeError, match="set_printoptions: precision must be int, got float"):
        paddle.set_printoptions(precision=4.5)
    assert paddle.disable_signal_handler() is None
