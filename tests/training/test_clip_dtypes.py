"""A global-norm clip over gradients of several dtypes, as Paddle 2.6 builds it: each dtype's squared
norms summed apart, float16 ones cast to float32 (unless every gradient is float16 and
``_allow_pure_fp16_global_norm_clip(True)``), float32 to float64 where a float64 gradient is there;
a gradient of another dtype than the scale takes the scale cast to its dtype."""

import numpy as np
import pytest

from pe_cli import fluid, paddle
from pe_cli.paddle.nn.clip import _allow_pure_fp16_global_norm_clip


def _clip_ops(dtypes, clip_norm=1.0):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        block = main.global_block()
        pairs = []
        for i, dtype in enumerate(dtypes):
            p = block.create_parameter(name=f"p{i}", shape=[2, 3], dtype=dtype)
            g = block.create_var(name=f"p{i}@GRAD", shape=[2, 3], dtype=dtype)
            pairs.append((p, g))
        clipped = paddle.nn.ClipGradByGlobalNorm(clip_norm=clip_norm)(pairs)
    return main, clipped


@pytest.fixture
def pure_fp16_off():
    yield
    _allow_pure_fp16_global_norm_clip(False)


def test_float16_norms_are_summed_in_float32_unless_pure_fp16_is_allowed(pure_fp16_off):
    main, clipped = _clip_ops(["float16", "float16"])
    types = [op.type for op in main.global_block().ops]
    assert types == [
        "squared_l2_norm",
        "squared_l2_norm",
        "sum",
        "cast",
        "sqrt",
        "fill_constant",
        "elementwise_max",
        "elementwise_div",
        "cast",
        "elementwise_mul",
        "cast",
        "elementwise_mul",
    ]
    assert [g.dtype for _, g in clipped] == ["float16", "float16"]
    _allow_pure_fp16_global_norm_clip(True)
    main, _ = _clip_ops(["float16", "float16"])
    assert "cast" not in [op.type for op in main.global_block().ops]
    main, _ = _clip_ops(["float16", "float32"])  # not all float16: float32 still
    assert "cast" in [op.type for op in main.global_block().ops]


def test_float32_and_float64_gradients_clip_by_their_joint_norm():
    main, clipped = _clip_ops(["float32", "float64"], clip_norm=2.0)
    g32 = np.arange(6, dtype="float32").reshape(2, 3)
    g64 = -np.ones((2, 3), "float64")
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        got = exe.run(main, feed={"p0@GRAD": g32, "p1@GRAD": g64}, fetch_list=[g for _, g in clipped])
    scale = 2.0 / max(2.0, np.sqrt((g32.astype("float64") ** 2).sum() + (g64**2).sum()))
    assert got[0].dtype == np.float32 and got[1].dtype == np.float64
    np.testing.assert_allclose(got[0], g32 * scale, rtol=1e-6)
    np.testing.assert_allclose(got[1], g64 * scale, rtol=1e-12)
