"""paddle.hapi: model.to_list as Paddle's; Model refuses in one line (pe has no hapi.Model)."""

import pytest

from pe_cli import paddle
from pe_cli.base.errors import FluidUnsupported


def test_to_list_and_the_model_stand_in():
    to_list = paddle.hapi.model.to_list
    assert (to_list(None), to_list((1, 2)), to_list([3]), to_list("a")) == (None, [1, 2], [3], ["a"])
    with pytest.raises(FluidUnsupported, match="paddle.Model: pe runs static graphs only"):
        paddle.hapi.Model(None)
