"""The random, sampling and complex families' results for tools/op_case_bytes.py's ``random``, ``sampling`` and
``complex`` families: each op and grad op called through its CPU kernel (``OpDef.kernel``) with seeded draws (numpy's
Generator seeded anew for each call, and Paddle's engine where the op knows it), over dtypes, shapes (0-D, empty),
C-contiguous, Fortran-ordered and strided inputs, attributes (diagonals, seeds, axes, implementations), shapes given
by tensors and the refusals; and a few of them as executor steps run on several values (their Meta kept)."""

import zlib

import numpy as np


def _values(key, shape, dtype, low=-3.0, high=3.0):
    rng = np.random.default_rng(zlib.crc32(key.encode()))  # (the same values in both trees, whatever ran before)
    return rng.uniform(low, high, size=shape).astype(dtype)


def _layouts(key, shape, dtype, low=-3.0, high=3.0):
    x = _values(key, shape, dtype, low, high)
    forms = {"c": x}
    if len(shape) >= 2:
        wide = _values(key + "w", shape[:-1] + (shape[-1] * 2,), dtype, low, high)
        forms.update(fortran=np.asfortranarray(x), strided=wide[..., ::2])
    return forms


def _engines():
    from pe_cli.kernels.cpu.mersenne_twister import Mt19937_64

    return {"numpy": lambda: np.random.default_rng(5), "paddle": lambda: Mt19937_64.from_int(5)}


def _run(results, record, direct, key, op, ins, attrs, engines=("numpy",)):
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    opdef = registry.get(op)
    full = dict(opdef.default_attrs(), **attrs)
    made = _engines()
    for name in engines:
        record(results, f"{key}|{name}", lambda: direct(opdef, dict(ins), full, KernelContext(rng=made[name]())))


_SHAPES = ((3, 4), (), (0, 3), (2, 3, 5), (1,))
_FLOATS = ("float32", "float64", "float16")
_BOTH = ("numpy", "paddle")


def random(results, record, direct):
    """uniform_random, gaussian_random, truncated_gaussian_random, their batch_size_like forms, seed, randint,
    randperm, random_crop, poisson(_grad) and dirichlet."""
    for dt in _FLOATS + ("int32", "float64"):
        for shape in _SHAPES:
            for seed in (0, 7):
                a = {"shape": list(shape), "dtype": dt, "seed": seed}
                k = f"random|{dt}|{shape}|{seed}"
                _run(results, record, direct, k + "|u", "uniform_random", {}, dict(a, min=-2.0, max=3.5), _BOTH)
                _run(results, record, direct, k + "|g", "gaussian_random", {}, dict(a, mean=1.0, std=2.0), _BOTH)
                _run(results, record, direct, k + "|t", "truncated_gaussian_random", {}, dict(a, std=0.5), _BOTH)
            for lo, hi, dtype in ((0, 5, "int64"), (-3, 9, "int32"), (100, 101, "int64")):
                for seed in (0, 3):
                    a = {"shape": list(shape), "low": lo, "high": hi, "dtype": dtype, "seed": seed}
                    _run(results, record, direct, f"random|randint|{shape}|{a}", "randint", {}, a, _BOTH)
        for diag in ((3, 4, 7.0), (2, 0, -1.5), (9, 4, 2.0)):  # (the last: no room on [5, 5])
            a = {"shape": [5, 5], "dtype": dt, "diag_num": diag[0], "diag_step": diag[1], "diag_val": diag[2]}
            _run(results, record, direct, f"random|diag|{dt}|{diag}", "uniform_random", {}, a, _BOTH)
            like = {"Input": np.zeros((5, 2))}
            _run(results, record, direct, f"random|diaglike|{dt}|{diag}", "uniform_random_batch_size_like", like, a)
        for n in (1, 6, 0):
            a = {"n": n, "dtype": dt}
            _run(results, record, direct, f"random|randperm|{dt}|{n}", "randperm", {}, a, _BOTH)
        for seed in (0, 9):
            _run(results, record, direct, f"random|seed|{seed}", "seed", {}, {"seed": seed}, _BOTH)
        for ishape, shape, idx in (((4, 3), [-1, 2], (0, 0)), ((2, 7), [3, -1], (1, 1)), ((0, 3), [-1, 5], (0, 0))):
            for layout, x in _layouts(f"like{ishape}", ishape, "float32").items():
                a = {"shape": shape, "dtype": dt, "input_dim_idx": idx[0], "output_dim_idx": idx[1]}
                k = f"random|like|{dt}|{ishape}|{shape}|{layout}"
                _run(results, record, direct, k + "|u", "uniform_random_batch_size_like", {"Input": x}, a)
                a = dict(a, mean=-1.0, std=0.25)
                _run(results, record, direct, k + "|g", "gaussian_random_batch_size_like", {"Input": x}, a)
    for given in (
        {"ShapeTensor": np.array([3, 2], np.int32)},
        {"ShapeTensor": np.array([4], np.int64)},
        {"ShapeTensorList": [np.array([2], np.int64), np.array([3], np.int32)]},
        {"ShapeTensor": np.array([2, 2], np.int32), "ShapeTensorList": [np.array([5], np.int64)]},
    ):
        k = f"random|tensor|{sorted(given)}|{[np.asarray(v).tolist() for v in given.values()]}"
        _run(results, record, direct, k + "|u", "uniform_random", given, {"shape": [9]}, _BOTH)
        _run(results, record, direct, k + "|g", "gaussian_random", given, {"dtype": "float64"}, _BOTH)
        _run(results, record, direct, k + "|r", "randint", given, {"low": 0, "high": 10}, _BOTH)
    for dt in ("float32", "float64", "int32", "float16"):
        for shape, crop in (((2, 5, 6), [3, 4]), ((4, 6), [2]), ((3, 3), [3, 3]), ((0, 4), [2]), ((5, 5), [6])):
            for layout, x in _layouts(f"crop{dt}{shape}", shape, dt).items():
                for seed in (np.array([3], np.int64), np.array([-7], np.int64), np.array([2**40], np.int64)):
                    ins = {"X": x, "Seed": seed}
                    k = f"random|crop|{dt}|{shape}|{crop}|{layout}|{seed[0]}"
                    _run(results, record, direct, k, "random_crop", ins, {"shape": crop})
    for dt in ("float32", "float64"):
        for shape in _SHAPES:
            for layout, x in _layouts(f"poisson{dt}{shape}", shape, dt, 0.0, 6.0).items():
                _run(results, record, direct, f"random|poisson|{dt}|{shape}|{layout}", "poisson", {"X": x}, {})
                d = {"Out@GRAD": x}
                _run(results, record, direct, f"random|poisson_grad|{dt}|{shape}|{layout}", "poisson_grad", d, {})
        bad = np.array([1.0, -0.5, 2.0], dt)
        _run(results, record, direct, f"random|poisson|{dt}|bad", "poisson", {"X": bad}, {})
        _run(results, record, direct, f"random|poisson|{dt}|nan", "poisson", {"X": np.array([1.0, np.nan], dt)}, {})
    for dt in _FLOATS:
        for shape in ((3,), (2, 4), (0, 3), (2, 0), (2, 3, 2)):
            for layout, x in _layouts(f"dirichlet{dt}{shape}", shape, dt, 0.1, 4.0).items():
                _run(results, record, direct, f"random|dirichlet|{dt}|{shape}|{layout}", "dirichlet", {"Alpha": x}, {})
        bad = np.array([[1.0, 0.0], [2.0, 3.0]], dt)
        _run(results, record, direct, f"random|dirichlet|{dt}|bad", "dirichlet", {"Alpha": bad}, {})
    _steps(results, "random", _RANDOM_STEPS)


def sampling(results, record, direct):
    """bernoulli, exponential, multinomial, rrelu, dropout_nd, gumbel_softmax, uniform_random_inplace,
    gaussian_inplace and the grad ops."""
    for dt in _FLOATS + ("int32",):
        for shape in _SHAPES:
            for layout, x in _layouts(f"s{dt}{shape}", shape, dt, 0.0, 1.0).items():
                k = f"sampling|{dt}|{shape}|{layout}"
                _run(results, record, direct, k + "|bernoulli", "bernoulli", {"X": x}, {}, _BOTH)
                for lam in (1.0, 0.3, 7.5):
                    _run(results, record, direct, k + f"|exp|{lam}", "exponential", {"X": x}, {"lambda": lam})
                for a in ({"min": -2.0, "max": 3.0}, {"diag_num": 2, "diag_step": 1, "diag_val": 5.5}):
                    _run(results, record, direct, k + f"|uri|{a}", "uniform_random_inplace", {"X": x}, a)
                _run(results, record, direct, k + "|gi", "gaussian_inplace", {"x": x}, {"mean": 1.5, "std": 0.5})
            for layout, x in _layouts(f"r{dt}{shape}", shape, dt).items():
                if dt == "float16" and shape == (2, 3, 5) and layout == "c":
                    x = x.copy()
                    x.reshape(-1)[:2] = np.nan
                for a in ({"is_test": False}, {"is_test": True}, {"lower": 0.2, "upper": 0.2}):
                    k = f"sampling|rrelu|{dt}|{shape}|{layout}|{a}"
                    _run(results, record, direct, k, "rrelu", {"X": x}, a)
                    noise = _values(k + "n", shape, dt, 0.1, 0.3)
                    d = _values(k + "d", shape, dt)
                    _run(results, record, direct, k + "|grad", "rrelu_grad", {"X": x, "Noise": noise, "Out@GRAD": d}, a)
                for axis in ([], [0], [len(shape) - 1], [0, 2]):
                    if any(d >= len(shape) for d in axis) or (axis and not shape):
                        continue
                    for p in (0.0, 0.3, 1.0):
                        for impl in ("downgrade_in_infer", "upscale_in_train"):
                            for test in (False, True):
                                a = {"axis": axis, "dropout_prob": p, "dropout_implementation": impl, "is_test": test}
                                k = f"sampling|dropout_nd|{dt}|{shape}|{layout}|{a}"
                                _run(results, record, direct, k, "dropout_nd", {"X": x}, a)
                                mshape = tuple(n if i in axis or not axis else 1 for i, n in enumerate(shape))
                                mask = (_values(k + "m", mshape, "float32", 0, 1) > 0.4).astype(np.uint8)
                                gins = {"X": x, "Mask": mask, "Out@GRAD": _values(k + "d", shape, dt)}
                                _run(results, record, direct, k + "|grad", "dropout_nd_grad", gins, a)
    for dt in ("float32", "float64"):
        for shape in ((3, 5), (2, 3, 4), (4,), ()):
            for layout, x in _layouts(f"g{dt}{shape}", shape, dt).items():
                for a in ({"axis": -1}, {"axis": 0, "hard": True}, {"axis": 1, "temperature": 0.5}):
                    k = f"sampling|gumbel|{dt}|{shape}|{layout}|{a}"
                    _run(results, record, direct, k, "gumbel_softmax", {"X": x}, a)
                    out = np.abs(_values(k + "o", shape, dt))
                    gins = {"Out": out, "Out@GRAD": _values(k + "d", shape, dt)}
                    _run(results, record, direct, k + "|grad", "gumbel_softmax_grad", gins, a)
        for shape in ((5,), (3, 4), (0, 4)):
            for layout, x in _layouts(f"m{dt}{shape}", shape, dt, 0.0, 1.0).items():
                for a in ({"num_samples": 3, "replacement": True}, {"num_samples": 2}, {"num_samples": 9}):
                    k = f"sampling|multinomial|{dt}|{shape}|{layout}|{a}"
                    _run(results, record, direct, k, "multinomial", {"X": x}, a)
        bad = np.array([[0.2, -0.1], [0.0, 0.0]], dt)
        _run(results, record, direct, f"sampling|multinomial|{dt}|bad", "multinomial", {"X": bad}, {})
    _steps(results, "sampling", _SAMPLING_STEPS)


def complex(results, record, direct):  # noqa: A001 -- the family's name
    """complex, real, imag, angle, as_complex, as_real and the grad ops."""
    for dt, ct in (("float32", "complex64"), ("float64", "complex128")):
        for xs, ys in (((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 5)), ((), (2,)), ((0, 3), (3,))):
            for layout, x in _layouts(f"cx{dt}{xs}", xs, dt).items():
                y = _values(f"cy{dt}{ys}", ys, dt)
                k = f"complex|complex|{dt}|{xs}|{ys}|{layout}"
                _run(results, record, direct, k, "complex", {"X": x, "Y": y}, {})
                out = np.broadcast_shapes(xs, ys)
                d = _values(k + "r", out, dt) + 1j * _values(k + "i", out, dt)
                gins = {"X": x, "Y": y, "Out@GRAD": d.astype(ct)}
                _run(results, record, direct, k + "|grad", "complex_grad", gins, {})
        for shape in ((3, 4), (), (0, 2), (2, 3, 2), (5,)):
            for layout, re in _layouts(f"z{dt}{shape}", shape, dt).items():
                z = (re + 1j * _values(f"zi{dt}{shape}", shape, dt)).astype(ct)
                if layout != "c":
                    z = np.asfortranarray(z) if layout == "fortran" else (z + 0 * re.T.T)[..., ::-1]
                if z.size > 2:
                    z.reshape(-1)[1] = 0
                k = f"complex|{dt}|{shape}|{layout}"
                for op in ("real", "imag", "angle", "as_real"):
                    _run(results, record, direct, f"{k}|{op}", op, {"X": z}, {})
                for op in ("real_grad", "imag_grad"):
                    _run(results, record, direct, f"{k}|{op}", op, {"Out@GRAD": re}, {})
                d = _values(k + "d", shape, dt)
                _run(results, record, direct, f"{k}|angle_grad", "angle_grad", {"X": z, "Out@GRAD": d}, {})
                _run(results, record, direct, f"{k}|angle_real", "angle", {"X": re}, {})
                _run(results, record, direct, f"{k}|angle_real_grad", "angle_grad", {"X": re, "Out@GRAD": d}, {})
        for shape in ((3, 2), (2, 4, 2), (0, 2), (2,)):
            for layout, x in _layouts(f"ac{dt}{shape}", shape, dt).items():
                _run(results, record, direct, f"complex|as_complex|{dt}|{shape}|{layout}", "as_complex", {"X": x}, {})
            wide = _values(f"acw{dt}{shape}", shape[:-1] + (4,), dt)[..., ::2]
            _run(results, record, direct, f"complex|as_complex|{dt}|{shape}|wide", "as_complex", {"X": wide}, {})
    _run(results, record, direct, "complex|angle|f16", "angle", {"X": _values("f16", (3, 3), "float16")}, {})
    _steps(results, "complex", _COMPLEX_STEPS)


_RANDOM_STEPS = [
    ("uniform_random", {}, {"shape": [3, 4], "min": -1.0, "max": 2.0}, ("Out",), True),
    ("gaussian_random", {}, {"shape": [2, 5], "dtype": "float64"}, ("Out",), True),
    ("gaussian_random_batch_size_like", {"Input": "x"}, {"shape": [-1, 3]}, ("Out",), False),
    ("uniform_random_batch_size_like", {"Input": "x"}, {"shape": [-1, 3], "diag_num": 2}, ("Out",), False),
    ("randint", {}, {"shape": [6], "low": 0, "high": 9}, ("Out",), True),
    ("poisson", {"X": "x"}, {}, ("Out",), False),
    ("dirichlet", {"Alpha": "x"}, {}, ("Out",), False),
]
_SAMPLING_STEPS = [
    ("bernoulli", {"X": "x"}, {}, ("Out",), True),
    ("exponential", {"X": "x"}, {"lambda": 2.0}, ("Out",), False),
    ("rrelu", {"X": "x"}, {}, ("Out", "Noise"), False),
    ("dropout_nd", {"X": "x"}, {"axis": [0], "dropout_prob": 0.4}, ("Out", "Mask"), False),
    ("gumbel_softmax", {"X": "x"}, {}, ("Out",), False),
    ("uniform_random_inplace", {"X": "x"}, {}, ("Out",), False),
]
_COMPLEX_STEPS = [
    ("as_complex", {"X": "x"}, {}, ("Out",), False),
    ("angle", {"X": "x"}, {}, ("Out",), False),
]


def _steps(results, family, forms):
    """The ops as executor steps (a Fluid program's and, where the op knows Paddle's engine, a Paddle 2.x one's)
    run on values of two shapes and dtypes, the first twice (its Meta kept), paddle.seed's generator seeded first."""
    from pe_cli.base.places import CPUPlace
    from pe_cli.executor.plan import OpStep, Values, run_step
    from pe_cli.framework import Program
    from pe_cli.framework.default_generator import manual_seed

    for op, ins, attrs, outs, engine in forms:
        for paddle2 in (False, True) if engine else (False,):
            manual_seed(77)
            program = Program()
            if paddle2:
                program._follows_paddle2 = True
            block = program.global_block()
            for n in ("x",) + outs:
                block.create_var(name=n.lower())
            block.append_op(op, {s: [v] for s, v in ins.items()}, {s: [s.lower()] for s in outs}, attrs)
            step = OpStep(block.ops[0], CPUPlace())
            shapes = [(4, 3, 2), (4, 3, 2), (2, 5, 2)]
            xs = [_values(f"step|{op}|{j}", s, "float32", 0.1, 0.9) for j, s in enumerate(shapes)]
            for j, x in enumerate(xs + [_values("s", (4, 3, 2), "float64", 0.1, 0.9)]):
                values, key = Values({"x": x}), f"{family}|step|{op}|{paddle2}|{j}"
                try:
                    run_step(step, values)
                except Exception as e:
                    results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
                    continue
                for s in outs:
                    a = np.asarray(values[s.lower()])
                    results[f"{key}|{s}|{a.dtype.str}|{a.shape}"] = np.frombuffer(a.tobytes(), dtype=np.uint8)
