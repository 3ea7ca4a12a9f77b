# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_distributions.py @ 0bf912252331a978c977986e5cfd329a8fed1afc
# Re-written for pe (same API calls, same numpy formulas, same facts asserted), run with `pe fluid`.
# Facts: Uniform and Normal built from floats, a float and an array (broadcast), arrays and fed
# Variables: samples have the shape Fluid gives (sample shape + batch shape; the sample shape alone for
# floats), and entropy, log_prob and (Normal) kl_divergence equal the numpy formulas within rtol 1e-6;
# Categorical of arrays: entropy and kl_divergence; MultivariateNormalDiag of fed Variables (a [2] loc,
# a diagonal [2, 2] scale): entropy and kl_divergence. Seeded (np.random.seed, the one change): unseeded,
# a Normal's entropy now and then falls near 0, where rtol 1e-6 is finer than one float32 rounding of
# the constant 0.5 + 0.5 log(2 pi) (in Fluid as in pe), and the script would fail by chance.
import math

import numpy as np
from paddle import fluid
from paddle.fluid import layers

# as Paddle's test imports them: the star import takes Normal, Uniform, Categorical and
# MultivariateNormalDiag from the module's __all__, which it thereby checks
from paddle.fluid.layers.distributions import *  # noqa: F403
# ruff: noqa: F405 (the names above come from the star import)

np.random.seed(2019)
B, D, TOL = 2, 3, 1e-6
LOG_2PI = np.log(np.float32(2 * math.pi))


def f32(x):
    return np.array(x).astype("float32")


def uniform_ref(low, high, value):
    low, high = f32(low), f32(high)
    inside = np.less(low, value).astype("float32") * np.less(value, high).astype("float32")
    return {"entropy": np.log(high - low), "log_prob": np.log(inside) - np.log(high - low)}


def normal_ref(loc, scale, value, other_loc, other_scale):
    loc, scale, other_loc, other_scale = f32(loc), f32(scale), f32(other_loc), f32(other_scale)
    ratio = (scale / other_scale) ** 2
    t = ((loc - other_loc) / other_scale) ** 2
    return {
        "entropy": 0.5 + 0.5 * LOG_2PI + np.log(scale),
        "log_prob": (-((value - loc) ** 2) / (2.0 * scale * scale) - np.log(scale) - math.log(math.sqrt(2 * math.pi))),
        "kl": 0.5 * (ratio + t - 1 - np.log(ratio)),
    }


def run(program, feed, fetch):
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    return exe.run(program=program, feed=feed, fetch_list=fetch)


def positive(*shape):
    x = np.random.randn(*shape).astype("float32")
    while not np.all(x > 0):
        x = np.random.randn(*shape).astype("float32")
    return x


def positive_float():
    x = (np.random.ranf() - 0.5) * 4
    while x < 0:
        x = (np.random.ranf() - 0.5) * 4
    return x


def check_normal():
    loc_np, other_loc_np = np.random.randn(B, D).astype("float32"), np.random.randn(B, D).astype("float32")
    loc_f, scale_f = (np.random.ranf() - 0.5) * 4, positive_float()
    other_loc_f, other_scale_f = (np.random.ranf() - 0.5) * 4, positive_float()
    scale_np, other_scale_np = positive(B, D), positive(B, D)
    values_np = np.random.randn(B, D).astype("float32")
    program = fluid.Program()
    with fluid.program_guard(program):
        loc, scale, other_loc, other_scale, values = [
            layers.data(name=n, shape=[D], dtype="float32")
            for n in ("loc", "scale", "other_loc", "other_scale", "values")
        ]
        pairs = {
            "float": (Normal(loc_f, scale_f), Normal(other_loc_f, other_scale_f)),
            "broadcast": (Normal(loc_f, scale_np), Normal(other_loc_f, other_scale_np)),
            "np": (Normal(loc_np, scale_np), Normal(other_loc_np, other_scale_np)),
            "variable": (Normal(loc, scale), Normal(other_loc, other_scale)),
        }
        fetch = []
        for kind, (a, b) in pairs.items():
            fetch += [a.sample([B, D]), a.entropy(), a.kl_divergence(b)]
            fetch += [a.log_prob(values)] if kind != "float" else []
    out = run(
        program,
        {
            "loc": loc_np,
            "scale": scale_np,
            "other_loc": other_loc_np,
            "other_scale": other_scale_np,
            "values": values_np,
        },
        fetch,
    )
    refs = {
        "float": normal_ref(loc_f, scale_f, values_np, other_loc_f, other_scale_f),
        "broadcast": normal_ref(loc_f, scale_np, values_np, other_loc_f, other_scale_np),
        "np": normal_ref(loc_np, scale_np, values_np, other_loc_np, other_scale_np),
    }
    refs["variable"] = refs["np"]
    for kind in pairs:
        sample, entropy, kl = out[:3]
        want_sample = (B, D) if kind == "float" else (B, D, B, D)
        np.testing.assert_allclose(sample.shape, want_sample, rtol=TOL)
        np.testing.assert_allclose(entropy, refs[kind]["entropy"], rtol=TOL)
        np.testing.assert_allclose(kl, refs[kind]["kl"], rtol=TOL)
        if kind != "float":
            np.testing.assert_allclose(out[3], refs[kind]["log_prob"], rtol=TOL)
        out = out[3 if kind == "float" else 4 :]


def check_uniform():
    low_np, low_f, high_f = np.random.randn(B, D).astype("float32"), np.random.uniform(-2, 1), np.random.uniform(1, 3)
    high_np = np.random.uniform(-5.0, 5.0, (B, D)).astype("float32")
    values_np = np.random.randn(B, D).astype("float32")
    program = fluid.Program()
    with fluid.program_guard(program):
        low, high, values = [layers.data(name=n, shape=[D], dtype="float32") for n in ("low", "high", "values")]
        dists = {
            "float": Uniform(low_f, high_f),
            "broadcast": Uniform(low_f, high_np),
            "np": Uniform(low_np, high_np),
            "variable": Uniform(low, high),
        }
        fetch = []
        for kind, u in dists.items():
            fetch += [u.sample([B, D]), u.entropy()] + ([u.log_prob(values)] if kind != "float" else [])
    out = run(program, {"low": low_np, "high": high_np, "values": values_np}, fetch)
    refs = {
        "float": uniform_ref(low_f, high_f, values_np),
        "broadcast": uniform_ref(low_f, high_np, values_np),
        "np": uniform_ref(low_np, high_np, values_np),
    }
    refs["variable"] = refs["np"]
    for kind in dists:
        want_sample = (B, D) if kind == "float" else (B, D, B, D)
        np.testing.assert_allclose(out[0].shape, want_sample, rtol=TOL)
        np.testing.assert_allclose(out[1], refs[kind]["entropy"], rtol=TOL)
        if kind != "float":
            np.testing.assert_allclose(out[2], refs[kind]["log_prob"], rtol=TOL)
        out = out[2 if kind == "float" else 3 :]


def softmax_parts(logits):
    shifted = logits - logits.max(-1, keepdims=True)
    z = np.exp(shifted).sum(-1, keepdims=True)
    return shifted, z, np.exp(shifted) / z


def check_categorical():
    logits_np, other_np = np.random.randn(B, D).astype("float32"), np.random.randn(B, D).astype("float32")
    program = fluid.Program()
    with fluid.program_guard(program):
        layers.data(name="logits", shape=[D], dtype="float32")
        layers.data(name="other_logits", shape=[D], dtype="float32")
        a, b = Categorical(logits_np), Categorical(other_np)
        fetch = [a.entropy(), a.kl_divergence(b)]
    entropy, kl = run(program, {"logits": logits_np}, fetch)
    s, z, p = softmax_parts(logits_np)
    so, zo, _ = softmax_parts(other_np)
    np.testing.assert_allclose(entropy, -(p * (s - np.log(z))).sum(-1, keepdims=True), rtol=TOL)
    np.testing.assert_allclose(kl, (p * (s - np.log(z) - so + np.log(zo))).sum(-1, keepdims=True), rtol=TOL)


def check_multivariate_normal_diag():
    loc_np, scale_np = np.random.random(B).astype("float32"), np.diag(np.random.random(B)).astype("float32")
    other_loc_np, other_scale_np = np.random.random(B).astype("float32"), np.diag(np.random.random(B)).astype("float32")
    program = fluid.Program()
    with fluid.program_guard(program):
        names = (("loc", [B]), ("scale", [B, B]), ("other_loc", [B]), ("other_scale", [B, B]))
        loc, scale, other_loc, other_scale = [
            layers.data(name=n, shape=s, dtype="float32", append_batch_size=False) for n, s in names
        ]
        a, b = MultivariateNormalDiag(loc, scale), MultivariateNormalDiag(other_loc, other_scale)
        b.entropy()
        fetch = [a.entropy(), a.kl_divergence(b)]
    entropy, kl = run(
        program, {"loc": loc_np, "scale": scale_np, "other_loc": other_loc_np, "other_scale": other_scale_np}, fetch
    )
    eye, ones = np.eye(B, dtype="float32"), np.ones((B, B), "float32")
    det = lambda m: np.prod(m + ones - eye)  # noqa: E731 -- the diagonal's product
    inv = lambda m: np.power(m, ones - 2 * eye)  # noqa: E731 -- the diagonal's reciprocals
    np.testing.assert_allclose(entropy, 0.5 * (B * (1.0 + LOG_2PI) + np.log(det(scale_np))), rtol=TOL)
    d = other_loc_np - loc_np
    want_kl = 0.5 * (
        np.sum(inv(other_scale_np) * scale_np)
        + d @ inv(other_scale_np) @ d
        - B
        + np.log(det(other_scale_np))
        - np.log(det(scale_np))
    )
    np.testing.assert_allclose(kl, want_kl, rtol=TOL)


check_categorical()
check_multivariate_normal_diag()
check_normal()
check_uniform()
print("ok")
