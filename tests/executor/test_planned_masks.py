"""A padding mask made from fed lengths, the way paddle.nn's TransformerEncoder with ``length`` makes it
(configs/reviews_transformer.yaml): the lengths reshaped (a view of a fed value: the plan copies it into a buffer
of its own, _reduce_loops.copy, since the feed is another array every step), sequence_mask with its maxlen
(_seq_loops.mask_below), the mask unsqueezed (a view of the plan's buffer) and scaled into an attention bias;
every op launched, the bits of op by op, for lengths past maxlen and 0 too."""

import numpy as np
import pytest

from pe_cli import fluid

from .test_planned_step import all_launched_in_bits

STEPS = 5


@pytest.fixture(autouse=True)
def compiled_segments(monkeypatch):
    monkeypatch.setenv("PE_SEGMENT_COMPILE_AFTER", "0")


def run(monkeypatch, planned, out_dtype):
    monkeypatch.setenv("PE_PLANNED_STEP", "1" if planned else "0")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [6, 6])
        length = fluid.layers.data("length", [1], dtype="int64")
        mask = fluid.layers.sequence_mask(fluid.layers.reshape(length, [-1]), maxlen=6, dtype=out_dtype)
        mask = fluid.layers.unsqueeze(fluid.layers.cast(mask, "float32"), [1])  # [batch, 1, 6]
        bias = fluid.layers.scale(mask, scale=1e4, bias=-1.0, bias_after_scale=False)  # (mask - 1) * 1e4
        out = fluid.layers.softmax(x + bias)
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(2)
    fetched = []
    for _ in range(STEPS):
        feed = {"x": rng.standard_normal((4, 6, 6)).astype(np.float32), "length": rng.integers(0, 9, (4, 1))}
        fetched.append(exe.run(main, feed=feed, fetch_list=[out, mask], scope=scope))
    return fetched, exe


@pytest.mark.parametrize("out_dtype", ["int64", "float32", "bool"])
def test_a_mask_from_fed_lengths_is_launched(monkeypatch, out_dtype):
    from pe_cli.kernels.cpu import _reduce_loops, _seq_loops

    planned, exe = run(monkeypatch, True, out_dtype)
    unplanned, _ = run(monkeypatch, False, out_dtype)
    ops = all_launched_in_bits(planned, unplanned, exe)
    fns = {t: [launch.fn for launch in launches] for t, launches in ops}
    assert fns["reshape2"][0] is _reduce_loops.copy  # (the fed lengths copied, not viewed)
    assert fns["sequence_mask"] == [_seq_loops.mask_below]
    assert fns["unsqueeze2"][0] is None  # (a view of the mask's buffer: no loop)
