"""fluid.contrib.search_pyramid_hash: XXH32 against the xxHash project's published digests, a
query/title matching net on pyramid-hash embeddings that trains (its table through the optimizer),
and the refusal of Bloom-filter lists."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import FluidUnsupported
from pe_cli.fluid import contrib
from pe_cli.kernels.cpu.hashing import xxh32

_ARGS = dict(
    num_emb=8,
    space_len=200,
    pyramid_layer=3,
    rand_len=4,
    drop_out_percent=0.1,
    is_training=True,
    use_filter=False,
    white_list_len=0,
    black_list_len=0,
    seed=7,
    lr=0.1,
)


@pytest.mark.parametrize(
    "data,seed,digest",
    [
        (b"", 0, 0x02CC5D05),
        (b"a", 0, 0x550D7456),
        (b"abc", 0, 0x32D153FF),
        (b"Nobody inspects the spammish repetition", 0, 0xE2293B2F),
    ],
)
def test_xxh32_gives_the_published_digests(data, seed, digest):
    rows = np.frombuffer(data, np.uint8).reshape(1, len(data))
    assert int(xxh32(rows, seed)[0]) == digest


def _ids(seqs):
    values = np.array([i for s in seqs for i in s], np.int32).reshape(-1, 1)
    return fluid.create_lod_tensor(values, [[len(s) for s in seqs]], fluid.CPUPlace())


def test_a_text_matching_net_on_pyramid_hash_trains():
    """Titles that repeat the query's n-grams are matches (label 1); others not. W is shared."""
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        q = fluid.data("q", [None, 1], "int32", lod_level=1)
        t = fluid.data("t", [None, 1], "int32", lod_level=1)
        label = fluid.data("label", [None, 1], "float32")
        pooled = [
            fluid.layers.sequence_pool(
                contrib.search_pyramid_hash(v, **_ARGS, param_attr=fluid.ParamAttr(name="pyramid_w")), "sum"
            )
            for v in (q, t)
        ]
        score = fluid.layers.fc(fluid.layers.elementwise_mul(*pooled), 1)
        loss = fluid.layers.mean(fluid.layers.sigmoid_cross_entropy_with_logits(score, label))
        fluid.optimizer.Adam(0.05).minimize(loss)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(start, scope=scope)
    w0 = np.array(scope.find_var("pyramid_w").get_tensor()).copy()
    rng = np.random.default_rng(3)
    queries = [list(rng.integers(1, 50, size=5)) for _ in range(8)]
    titles = [qs if k % 2 == 0 else list(rng.integers(50, 99, size=5)) for k, qs in enumerate(queries)]
    feed = {"q": _ids(queries), "t": _ids(titles), "label": np.array([[1.0 - k % 2] for k in range(8)], "float32")}
    losses = [float(exe.run(main, feed=feed, fetch_list=[loss], scope=scope)[0].reshape(-1)[0]) for _ in range(12)]
    w = np.array(scope.find_var("pyramid_w").get_tensor())
    assert losses[-1] < 0.5 * losses[0], losses
    assert 0 < np.count_nonzero(w != w0) < w.size  # only the windows the n-grams read were trained


def test_bloom_filter_lists_are_refused_in_one_line():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.data("x", [None, 1], "int32", lod_level=1)
        with pytest.raises(FluidUnsupported, match="use_filter=False$"):
            contrib.search_pyramid_hash(x, **dict(_ARGS, use_filter=True, white_list_len=16))
        out = contrib.search_pyramid_hash(x, **dict(_ARGS, use_filter=True))  # no lists: Fluid filters nothing
        assert out.shape == (-1, 8) and out.lod_level == 1
