"""Paddle 2.6.2 as the oracle of its random numbers on the CPU: each case of CASES builds a static program
(random ops appended directly, with their own ``seed`` or 0; parameters made by paddle.nn's initializers
and layers), seeds it as Paddle's users do (``paddle.seed(n)``, a program's ``random_seed``, an op's
``seed``), runs the startup program and the main program twice, and records every value drawn into
tests/data/paddle_oracle/random.json. tests/paddle/test_paddle_random.py builds each case with pe's
``paddle`` and wants the same values, bit for bit.

It also runs tests/data/paddle_oracle/seeded_static_script.py (a Linear + Conv2D network trained 3 steps
after ``paddle.seed(0)``) and records the losses it prints, which the test wants from ``pe fluid``.

    /work/p26/bin/python tools/paddle_random_oracle.py    # paddlepaddle==2.6.2"""

import json
import os
import subprocess
import sys

import numpy as np

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(_ROOT, "tests", "data", "paddle_oracle", "random.json")
SCRIPT = os.path.join(_ROOT, "tests", "data", "paddle_oracle", "seeded_static_script.py")

_ATTRS = {
    "uniform_random": lambda a, b: {"min": a, "max": b},
    "gaussian_random": lambda a, b: {"mean": a, "std": b},
    "truncated_gaussian_random": lambda a, b: {"mean": a, "std": b},
}


def _op(P, op_type, shape, a, b, seed=0, dtype="float32"):
    """One ``op_type`` op appended to the main program's block, drawing ``shape`` values of ``dtype``."""
    block = P.static.default_main_program().global_block()
    out = block.create_var(name=f"{op_type}_{len(block.ops)}.out", shape=shape, dtype=dtype)
    attrs = dict(_ATTRS[op_type](a, b), shape=list(shape), seed=seed, dtype=out.dtype)
    block.append_op(type=op_type, outputs={"Out": [out]}, attrs=attrs)
    return out


def run(P, build, seed=None, program_seed=0, runs=2):
    """Values drawn by the program ``build(P)`` makes: its parameters after the startup program, then
    the fetches of ``runs`` runs of the main program (a list of float lists, in order)."""
    P.enable_static()
    if seed is not None:
        P.seed(seed)
    main, startup = P.static.Program(), P.static.Program()
    if program_seed:
        main.random_seed = startup.random_seed = program_seed
    with P.static.program_guard(main, startup):
        fetch = build(P) or []
    scope = P.static.Scope()
    exe = P.static.Executor(P.CPUPlace())
    with P.static.scope_guard(scope):
        exe.run(startup)
        values = [np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()]
        for _ in range(runs if fetch else 0):
            values += exe.run(main, fetch_list=fetch)
    return [{"dtype": str(v.dtype), "shape": list(v.shape), "values": v.ravel().tolist()} for v in values]


def _ops(op_type, dtype, seed=0, a=-0.75, b=1.25):
    def build(P):
        return [
            _op(P, op_type, [7], a, b, seed, dtype),  # an odd count: the normal's last pair half dropped
            _op(P, op_type, [3, 4, 5], a, b, seed, dtype),
            _op(P, op_type, [2, 9], -a, b * 0.5, seed and seed + 1, dtype),
        ]

    return build


def _init(shape, name, *args, dtype="float32", **kwargs):
    def build(P):
        init = getattr(P.nn.initializer, name)(*args, **kwargs)
        P.create_parameter(shape, dtype, default_initializer=init)

    return build


def _initializers(P):
    inits = P.nn.initializer
    for shape, init, dtype in (
        ([6, 8], inits.XavierNormal(), "float32"),
        ([6, 8], inits.XavierUniform(), "float32"),
        ([4, 3, 3, 3], inits.KaimingNormal(), "float32"),
        ([4, 3, 3, 3], inits.KaimingUniform(), "float32"),
        ([5, 7], inits.Normal(0.2, 0.7), "float64"),
        ([5, 7], inits.Uniform(-0.3, 0.8), "float64"),
        ([9, 5], inits.TruncatedNormal(0.1, 2.0), "float32"),
        ([9, 5], inits.TruncatedNormal(-0.5, 0.3), "float64"),
    ):
        P.create_parameter(shape, dtype, default_initializer=init)


def _layers(P):
    """paddle.nn layers' default initializers, in the order the layers make their parameters."""
    nn = P.nn
    x = P.static.data("x", [2, 3, 8, 8])
    h = nn.Conv2D(3, 4, 3)(x)
    h = nn.Conv2DTranspose(4, 2, 3)(h)
    h = nn.BatchNorm2D(2)(h)
    s = P.static.data("s", [2, 3, 10])
    s = nn.Conv1D(3, 2, 3)(s)
    nn.Embedding(12, 5)(P.static.data("ids", [2, 3], "int64"))
    nn.Linear(10, 6)(P.static.data("v", [2, 10]))
    nn.LayerNorm(6)(P.static.data("w", [2, 6]))


def _dropouts(P):
    """Dropout's masks: upscale_in_train and downscale_in_infer, float32 and float64, after a parameter
    drawn in the startup program."""
    P.create_parameter([3, 5], "float32", default_initializer=P.nn.initializer.Normal())
    F = P.nn.functional
    x32, x64 = P.full([4, 9], 1.5, "float32"), P.full([5, 3], -2.0, "float64")
    return [F.dropout(x32, 0.4), F.dropout(x64, 0.25, mode="downscale_in_infer"), P.nn.Dropout(0.7)(x32)]


def _integers(seed):
    """randint and randperm ops with ``seed`` (0: the default generator's), and bernoulli over fixed probabilities."""

    def build(P):
        block = P.static.default_main_program().global_block()
        outs = []
        for op_type, attrs in (
            ("randint", {"low": -3, "high": 10, "shape": [4, 6], "dtype": P.int64}),
            ("randint", {"low": -1500000000, "high": 1500000000, "shape": [40], "dtype": P.int64}),
            ("randint", {"low": 0, "high": 7, "shape": [9], "dtype": P.int32}),
            ("randperm", {"n": 12, "dtype": P.int64}),
            ("randperm", {"n": 31, "dtype": P.int32}),
        ):
            out = block.create_var(name=f"{op_type}_{len(block.ops)}.out", dtype=attrs["dtype"])
            block.append_op(type=op_type, outputs={"Out": [out]}, attrs=dict(attrs, seed=seed))
            outs.append(out)
        probs = np.linspace(0, 1, 24).reshape(4, 6)
        for dtype in ("float32", "float64"):
            outs.append(P.bernoulli(P.to_tensor(probs.astype(dtype))))
        return outs

    return build


def _zero_dim_ints(P):
    """paddle.randint with shape []: 0-D draws (Paddle 2.x's), beside a [2, 3] one."""
    return [P.randint(-3, 3, shape=[], dtype="int32"), P.randint(0, 100, shape=[]), P.randint(-3, 3, [2, 3], "int32")]


def _gaussians(P):
    """paddle.tensor.random.gaussian (not in Paddle's __all__; its op tests call it): with an op seed, the
    global one, float64."""
    gaussian = P.tensor.random.gaussian
    return [gaussian([3, 4], mean=1.0, std=2.0, seed=10), gaussian([2, 2], dtype="float64"), gaussian([])]


def _cases():
    cases = {}
    for op_type in _ATTRS:
        short = op_type.split("_")[0]
        for dtype in ("float32", "float64"):
            bits = dtype[-2:]
            cases[f"{short}_global_seed_{bits}"] = (_ops(op_type, dtype), 3, 0)
            cases[f"{short}_op_seed_{bits}"] = (_ops(op_type, dtype, seed=11), None, 0)
        cases[f"{short}_op_seed_negative"] = (_ops(op_type, "float32", seed=-5), None, 0)
        cases[f"{short}_seed_zero"] = (_ops(op_type, "float32", a=0.5, b=2.0), 0, 0)
    cases["initializers_global_seed"] = (_initializers, 5, 0)
    cases["initializers_program_seed"] = (_initializers, None, 9)  # each op's seed is the program's
    cases["integers_global_seed"] = (_integers(0), 4, 0)
    cases["integers_op_seed"] = (_integers(23), 4, 0)  # (bernoulli has no seed: the default generator's)
    cases["randint_zero_dim"] = (_zero_dim_ints, 6, 0)
    cases["tensor_random_gaussian"] = (_gaussians, 5, 0)
    cases["dropout_global_seed"] = (_dropouts, 17, 0)
    cases["dropout_program_seed"] = (_dropouts, 17, 31)  # the same mask every run, as Paddle's
    cases["layers_global_seed"] = (_layers, 0, 0)
    cases["layers_program_seed"] = (_layers, 7, 123)
    return cases


CASES = _cases()


def main():
    import paddle

    paddle.set_device("cpu")
    data = {"engine": f"paddlepaddle {paddle.__version__}", "commit": paddle.version.commit, "cases": {}}
    for name, (build, seed, program_seed) in CASES.items():
        data["cases"][name] = run(paddle, build, seed, program_seed)
    env = dict(os.environ, PYTHONPATH="")
    printed = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True, check=True, env=env).stdout
    data["script_losses"] = json.loads(printed.strip().splitlines()[-1])
    cases = ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in data.pop("cases").items())
    with open(OUT, "w", encoding="utf-8") as f:  # one line a case
        f.write(json.dumps(data)[:-1] + ', "cases": {\n' + cases + "\n}}\n")
    print(f"{len(CASES)} cases, losses {data['script_losses']}: {OUT}")


if __name__ == "__main__":
    main()
