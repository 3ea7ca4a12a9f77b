"""Fixtures of the paddle tests."""

import pytest

from pe_cli import fluid, paddle
from pe_cli.framework import program_release


@pytest.fixture
def paddle2():
    """Programs made in the test follow Paddle 2.6 (``paddle.enable_static()``); Fluid 1.8's rules after."""
    old = program_release.follow_paddle2(False)
    paddle.enable_static()
    yield
    program_release.follow_paddle2(old, (fluid.default_main_program(), fluid.default_startup_program()))
