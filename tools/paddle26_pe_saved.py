"""Paddle 2.6.2 loads the models pe saves from Paddle 2.x programs and computes pe's outputs (issue 96).

    PYTHONPATH=. .venv/bin/python tools/paddle26_pe_saved.py pe-save DIR      # pe: DIR/<case>/ + record.*
    /work/p26/bin/python tools/paddle26_pe_saved.py paddle-check DIR         # Paddle 2.6.2 loads each

pe saves, in every way a 2.x program does:

- ``resave:<case>``: each model Paddle 2.6.2 saved (tests/data/paddle26_saved/), loaded by pe's
  ``paddle.static.load_inference_model`` and saved again by its ``save_inference_model``;
- ``static:<case>``: 2.x static programs built by pe (tools/paddle26_saved_models.py's static cases), saved by ``paddle.static.save_inference_model``;
- ``jit:<case>``: tools/paddle26_saved_models.py's ``paddle.nn`` layers, seeded, saved by pe's ``paddle.jit.save``;
- ``export:mnist_mlp``: ``pe train`` of configs/mnist_mlp.yaml for a few steps and ``pe export --inference-dir``.

Beside each model pe records its inputs and its own outputs; the check loads the model with
``paddle.static.load_inference_model`` and compares (<= 1e-5 + 1e-5 |ref|). Each side prints one line
per case and the counts and writes DIR/<mode>.json. Nothing here is committed output: docs/COMPAT.md
records a run."""

import json
import os
import shutil
import subprocess
import sys
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SAVED = os.path.join(ROOT, "tests", "data", "paddle26_saved")
sys.path.insert(0, HERE)


def _pe_paddle():
    sys.path.insert(0, ROOT)
    from pe_cli.fluid import runner

    runner.install()
    import paddle

    return paddle


def _record(out, feeds, inputs, outs, how):
    np.savez(
        os.path.join(out, "record.npz"),
        **{f"in:{f}": a for f, a in zip(feeds, inputs)},
        **{f"out:{i}": np.asarray(o) for i, o in enumerate(outs)},
    )
    with open(os.path.join(out, "record.json"), "w") as f:
        json.dump({"feeds": list(feeds), "saved_by": how}, f, indent=1)


def _run_saved(paddle, prefix, inputs):
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
        return feeds, exe.run(program, feed=dict(zip(feeds, inputs)), fetch_list=fetches)


def _resave(paddle, case, out):
    rec = np.load(os.path.join(SAVED, case, "record.npz"))
    with open(os.path.join(SAVED, case, "record.json")) as f:
        feeds = json.load(f)["feeds"]
    inputs = [rec[f"in:{n}"] for n in feeds]
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feeds, fetches = paddle.static.load_inference_model(os.path.join(SAVED, case, "model"), exe)
        block = program.global_block()
        paddle.static.save_inference_model(
            os.path.join(out, "model"), [block.var(n) for n in feeds], fetches, exe, program=program
        )
    feeds, got = _run_saved(paddle, os.path.join(out, "model"), inputs)
    _record(out, feeds, inputs, got, "pe: load_inference_model, save_inference_model")


def _static(paddle, build, out):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x, y, inputs = build(paddle)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        paddle.static.save_inference_model(
            os.path.join(out, "model"), [x], y if isinstance(y, list) else [y], exe, program=main
        )
    feeds, got = _run_saved(paddle, os.path.join(out, "model"), inputs)
    _record(out, feeds, inputs, got, "pe: paddle.static.save_inference_model")


def _jit(paddle, make, inputs, out):
    paddle.enable_static()
    paddle.seed(2026)
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        startup = paddle.static.default_startup_program()
        layer = make()
        exe.run(startup)
        specs = [paddle.static.InputSpec(list(a.shape), str(a.dtype), f"x{i}") for i, a in enumerate(inputs)]
        paddle.jit.save(layer, os.path.join(out, "model"), input_spec=specs)
        feeds, got = _run_saved(paddle, os.path.join(out, "model"), inputs)
    _record(out, feeds, inputs, got, "pe: paddle.jit.save")


def _export(out):
    """``pe train`` a few steps of configs/mnist_mlp.yaml, then ``pe export --inference-dir``; pe's outputs
    on 4 test images."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    cfg = os.path.join(ROOT, "configs", "mnist_mlp.yaml")
    small = ["data.train.limit=64", "epochs=1", "data.batch_size=32"]
    for args in (
        ["train", cfg, *small, "--out", os.path.join(out, "run"), "-q"],
        ["export", cfg, "--checkpoint", os.path.join(out, "run"), "--inference-dir", os.path.join(out, "inf")],
    ):
        proc = subprocess.run([sys.executable, "-m", "pe_cli", *args], env=env, capture_output=True, text=True)
        if proc.returncode:
            raise RuntimeError(f"pe {args[0]}: {proc.stderr.strip().splitlines()[-1:]}")
    paddle = _pe_paddle()
    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feeds, fetches = paddle.static.load_inference_model(
            os.path.join(out, "inf"), exe, model_filename=None, params_filename=None
        )
        shape = [4] + [d if d > 0 else 1 for d in program.global_block().var(feeds[0]).shape[1:]]
        inputs = [np.random.default_rng(3).uniform(-1, 1, shape).astype("float32")]
        got = exe.run(program, feed=dict(zip(feeds, inputs)), fetch_list=fetches)
    _record(out, feeds, inputs, got, "pe export --inference-dir")


def cases(paddle):
    import paddle26_saved_models as p26

    out = {f"resave:{c}": (_resave, c) for c in sorted(os.listdir(SAVED))}
    out.update({f"static:{n}": (_static, b) for n, b in p26.STATIC.items()})
    out.update({f"jit:{n}": (_jit, mi) for n, mi in p26._layer_cases(paddle).items()})
    out["export:mnist_mlp"] = (None, None)
    return out


def pe_save(out, only=()):
    paddle = _pe_paddle()
    results = {}
    for name, (how, arg) in cases(paddle).items():
        if only and name not in only:
            continue
        target = os.path.join(out, name.replace(":", "__"))
        shutil.rmtree(target, ignore_errors=True)
        os.makedirs(target)
        try:
            if how is None:
                _export(target)
            elif how is _jit:
                _jit(paddle, arg[0], arg[1], target)
            elif how is _resave:
                _resave(paddle, arg, target)
            else:
                _static(paddle, arg, target)
            results[name] = "ok"
        except Exception as e:  # a case pe cannot build, run or save: said, and the others go on
            results[name] = _said(e)
        print(f"{name}: {results[name]}", flush=True)
    _write(out, "pe-save", results)


def paddle_check(out):
    import paddle

    paddle.enable_static()
    results = {}
    for d in sorted(os.listdir(out)):
        path = os.path.join(out, d)
        if not os.path.isfile(os.path.join(path, "record.json")):
            continue
        name = d.replace("__", ":")
        results[name] = _outcome(lambda: _check(paddle, path))
        print(f"{name}: {results[name]}", flush=True)
    _write(out, "paddle-check", results)


def _check(paddle, path):
    rec = np.load(os.path.join(path, "record.npz"))
    with open(os.path.join(path, "record.json")) as f:
        meta = json.load(f)
    prefix = os.path.join(path, "inf") if meta["saved_by"].startswith("pe export") else os.path.join(path, "model")
    exe = paddle.static.Executor(paddle.CPUPlace())
    kwargs = {"model_filename": None, "params_filename": None} if os.path.isdir(prefix) else {}
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feeds, fetches = paddle.static.load_inference_model(prefix, exe, **kwargs)
        got = exe.run(program, feed={n: rec[f"in:{n}"] for n in feeds}, fetch_list=fetches)
    for i, g in enumerate(got):
        np.testing.assert_allclose(g, rec[f"out:{i}"], rtol=1e-5, atol=1e-5, err_msg=f"output {i}")


def _said(e):
    return f"{type(e).__name__}: {str(e).strip().splitlines()[0][:300] if str(e).strip() else ''}"


def _outcome(check):
    try:
        check()
        return "ok"
    except Exception as e:
        lines = [ln.strip() for ln in str(e).splitlines() if ln.strip() and not ln.strip().startswith("---")]
        hint = next(
            (ln for ln in lines if "Error" in ln or "Hint" in ln or "Mismatch" in ln), lines[0] if lines else ""
        )
        where = traceback.extract_tb(e.__traceback__)[-1]
        return f"{type(e).__name__}: {hint[:300]} ({os.path.basename(where.filename)})"


def _write(out, mode, results):
    ok = sum(v == "ok" for v in results.values())
    print(f"{mode}: {ok} of {len(results)} ok")
    with open(os.path.join(out, f"{mode}.json"), "w") as f:
        json.dump({"ok": ok, "of": len(results), "results": results}, f, indent=1, sort_keys=True)
        f.write("\n")


def main(args):
    mode, out = args[0], os.path.abspath(args[1] if len(args) > 1 else "/tmp/pe_paddle26_saved")
    os.makedirs(out, exist_ok=True)
    if mode == "pe-save":
        pe_save(out, set(args[2:]))
    else:
        paddle_check(out)


if __name__ == "__main__":
    main(sys.argv[1:])
