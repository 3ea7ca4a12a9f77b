"""The reverse of tools/fluid_saved_models.py: pe saves the same models in every format, then Fluid 1.8.5
(and Paddle 2.6.2's ``paddle.static.load_inference_model``) loads pe's saves and must compute pe's
outputs (<= 1e-5 + 1e-5 |ref|) and, from pe's saved state, pe's next training step.

    .venv/bin/python tools/fluid_saved_reverse.py pe-save DIR          # pe: DIR/<family>/ + record.*
    /work/fluid185/bin/python tools/fluid_saved_reverse.py fluid-check DIR
    /work/paddle262/bin/python tools/fluid_saved_reverse.py paddle-check DIR

Each check prints one line per family and format (ok, or what failed) and the counts, and writes
them to DIR/<mode>.json. Nothing here is committed output: docs/COMPAT.md records a run."""

import json
import os
import shutil
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fluid_saved_models as tool  # noqa: E402  (this module imports it; it never imports this one)
from fluid_saved_families import FAMILIES, feed_dict  # noqa: E402

CHECKS = (
    "inference",
    "inference_combined",
    "persistables",
    "persistables_combined",
    "params",
    "fluid_load",
    "fluid_load_dir",
    "program_state",
    "pdmodel",
)  # (program_state_dir: Fluid reads a directory so too)


def _close(got, want, what):
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5, err_msg=what)


def pe_save(out):
    """pe builds, trains one step, saves every format and records its outputs (tool.record)."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import pe_cli.fluid as fluid

    results = {}
    for family in FAMILIES:
        target = os.path.join(out, family)
        shutil.rmtree(target, ignore_errors=True)
        os.makedirs(target)
        try:
            tool.record(fluid, family, target)
            results[family] = "ok"
        except Exception as e:  # a family pe cannot build or run: said, and the others go on
            results[family] = f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"
        print(f"{family}: {results[family]}")
    _write(out, "pe-save", results)


def _record(family_dir):
    with open(os.path.join(family_dir, "record.json")) as f:
        meta = json.load(f)
    rec = dict(np.load(os.path.join(family_dir, "record.npz")))
    return meta, rec


def _batch(meta, rec, kind, names=None):
    names = names or sorted({k.split(":", 1)[1] for k in rec if k.startswith(kind + ":")})
    return {n: (rec[f"{kind}:{n}"], meta["lod"].get(f"{kind}:{n}")) for n in names}


def _check_outputs(meta, rec, got, names=None):
    for name, value in zip(names or meta["targets"], got):
        _close(np.array(value), rec["out:" + name], name)


def _inference(fluid, d, meta, rec, fmt, load):
    place = fluid.CPUPlace()
    exe = fluid.Executor(place)
    with fluid.scope_guard(fluid.core.Scope()):
        kwargs = {"model_filename": "model", "params_filename": "params"} if fmt == "inference_combined" else {}
        program, feeds, fetches = load(os.path.join(d, fmt), exe, **kwargs)
        got = exe.run(
            program,
            feed=feed_dict(fluid, place, _batch(meta, rec, "infer", meta["feeds"])),
            fetch_list=fetches,
            return_numpy=False,
        )
    _check_outputs(meta, rec, got)


def _checkpoint(fluid, tool, family, d, meta, rec, how):
    """Fluid builds the model, loads pe's saved state: pe's outputs, then pe's next step."""
    place = fluid.CPUPlace()
    exe = fluid.Executor(place)
    with fluid.scope_guard(fluid.core.Scope()), fluid.unique_name.guard():
        main, startup, test, spec = tool.build(fluid, family)
        exe.run(startup)
        tool.load_state(fluid, exe, d, how, main)
        got = exe.run(
            test,
            feed=feed_dict(fluid, place, _batch(meta, rec, "infer")),
            fetch_list=meta["targets"],
            return_numpy=False,
        )
        _check_outputs(meta, rec, got)
        if meta["train"]:
            loss, params = tool.train_step(fluid, exe, main, spec, feed_dict(fluid, place, _batch(meta, rec, "train1")))
            _close(loss, rec["next:loss"], "the next step's loss")
            if how != "params":
                for name, value in params.items():
                    _close(value, rec["next:" + name], name)


def _pdmodel(fluid, d, meta, rec):
    """Fluid parses pe's .pdmodel (the whole training program), sets the saved state in it and runs
    the next step: pe's loss. (fluid.load cannot: a parsed program's variables are no Parameters, so
    Fluid 1.8.5 looks for the parameters in .pdopt; load_program_state / set_program_state go by name.)"""
    place = fluid.CPUPlace()
    exe = fluid.Executor(place)
    with open(os.path.join(d, "checkpoint.pdmodel"), "rb") as f:
        program = fluid.Program.parse_from_string(f.read())
    if not meta["train"]:
        return
    with fluid.scope_guard(fluid.core.Scope()):
        for var in program.list_vars():  # (set_program_state sets variables that hold a value)
            if var.persistable:
                fluid.global_scope().var(var.name)
        state = fluid.io.load_program_state(os.path.join(d, "checkpoint"))
        for name, value in state.items():
            fluid.global_scope().var(name).get_tensor().set(value, place)
        (loss,) = exe.run(program, feed=feed_dict(fluid, place, _batch(meta, rec, "train1")), fetch_list=[meta["loss"]])
    _close(loss, rec["next:loss"], "the .pdmodel program's next-step loss")


def fluid_check(out):
    import paddle.fluid as fluid

    results = {}
    for family in FAMILIES:
        d = os.path.join(out, family)
        if not os.path.isfile(os.path.join(d, "record.json")):
            results.update({f"{family}/{c}": "pe did not save it" for c in CHECKS})
            continue
        meta, rec = _record(d)
        for check in CHECKS:
            results[f"{family}/{check}"] = _outcome(
                lambda: (
                    _inference(fluid, d, meta, rec, check, fluid.io.load_inference_model)
                    if check.startswith("inference")
                    else _pdmodel(fluid, d, meta, rec)
                    if check == "pdmodel"
                    else _checkpoint(fluid, tool, family, d, meta, rec, check)
                )
            )
            print(f"{family}/{check}: {results[family + '/' + check]}", flush=True)
    _write(out, "fluid-check", results)


class _Paddle2Fluid:
    """What _inference uses of ``fluid``, from Paddle 2.6's static API (which has no paddle.fluid)."""

    def __init__(self, paddle):
        self.CPUPlace, self.Executor = paddle.CPUPlace, paddle.static.Executor
        self.scope_guard, self.core = paddle.static.scope_guard, paddle.base.core

    def create_lod_tensor(self, array, lengths, place):
        tensor = self.core.LoDTensor()
        tensor.set(array, place)
        tensor.set_recursive_sequence_lengths(lengths)
        return tensor


def paddle_check(out):
    import paddle

    paddle.enable_static()
    fluid = _Paddle2Fluid(paddle)
    results = {}
    for family in FAMILIES:
        d = os.path.join(out, family)
        for fmt in ("inference", "inference_combined"):
            if not os.path.isfile(os.path.join(d, "record.json")):
                results[f"{family}/{fmt}"] = "pe did not save it"
                continue
            meta, rec = _record(d)

            def load(path, exe, **kwargs):  # (filenames given, even None: Fluid 1.x's directory layout)
                kwargs = kwargs or {"model_filename": None, "params_filename": None}
                return paddle.static.load_inference_model(path, exe, **kwargs)

            results[f"{family}/{fmt}"] = _outcome(lambda: _inference(fluid, d, meta, rec, fmt, load))
            print(f"{family}/{fmt}: {results[family + '/' + fmt]}", flush=True)
    _write(out, "paddle-check", results)


def _outcome(check):
    try:
        check()
        return "ok"
    except Exception as e:
        lines = [line.strip() for line in str(e).splitlines() if line.strip() and not line.strip().startswith("---")]
        summary = lines.index("Error Message Summary:") + 1 if "Error Message Summary:" in lines else None
        hint = (
            lines[summary]
            if summary is not None and summary < len(lines)
            else next((line for line in lines if "Error" in line or "Hint" in line or "Mismatch" in line), "")
        )
        where = traceback.extract_tb(e.__traceback__)[-1]
        return f"{type(e).__name__}: {(hint or (lines[0] if lines else ''))[:300]} ({os.path.basename(where.filename)})"


def _write(out, mode, results):
    ok = sum(v == "ok" for v in results.values())
    print(f"{mode}: {ok} of {len(results)} ok")
    with open(os.path.join(out, f"{mode}.json"), "w") as f:
        json.dump({"ok": ok, "of": len(results), "results": results}, f, indent=1, sort_keys=True)
        f.write("\n")


def main(args):
    mode, out = args[0], os.path.abspath(args[1] if len(args) > 1 else "/tmp/pe_fluid_saved")
    os.makedirs(out, exist_ok=True)
    {"pe-save": pe_save, "fluid-check": fluid_check, "paddle-check": paddle_check}[mode](out)


if __name__ == "__main__":
    main(sys.argv[1:])
