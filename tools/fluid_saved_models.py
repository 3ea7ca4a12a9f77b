"""Models Fluid 1.8.5 saved, in every format it saves, and the reverse: Fluid loading pe's saves.

    /work/fluid185/bin/python tools/fluid_saved_models.py               # writes tests/data/fluid_saved/
    .venv/bin/python tools/fluid_saved_reverse.py pe-save DIR           # pe saves the same models in DIR
    /work/fluid185/bin/python tools/fluid_saved_reverse.py fluid-check DIR   # Fluid loads them: pe's outputs?
    /work/paddle262/bin/python tools/fluid_saved_reverse.py paddle-check DIR # Paddle 2.6.2's inference loader

One small model of each layer family users save (FAMILIES), built by the same code on both engines
(every builder takes the ``fluid`` module), is trained one step, then saved by Fluid as
``save_inference_model`` (separate files and combined), ``save_persistables`` (separate and
combined), ``save_params`` and ``fluid.save``; with it go the inference batch, Fluid's outputs on
it, the next training batch, and the loss and parameters after one more step from the saved state
(``record.npz``, ``record.json``). tests/io/test_fluid_saved_models.py loads each save in pe and
compares. The reverse modes are a recorded run (docs/COMPAT.md): CI has no Fluid.
"""

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fluid_saved_families import FAMILIES, feed_dict  # noqa: E402

OUT = os.path.join(os.path.dirname(HERE), "tests", "data", "fluid_saved")
# the save formats: (directory or prefix, how Fluid's API writes it)
FORMATS = ("inference", "inference_combined", "persistables", "persistables_combined", "params", "checkpoint")
COMBINED = {"model_filename": "model", "params_filename": "params"}


def build(fluid, family):
    """(main, startup, test program, spec) of ``family`` built with ``fluid``, seeded."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        spec = FAMILIES[family](fluid)
        test = main.clone(for_test=True)
        if spec.get("optimizer"):
            spec["optimizer"](fluid).minimize(spec["loss"])
    return main, startup, test, spec


def save_all(fluid, exe, main, spec, out):
    """Every save format of ``main``'s state, into ``out``."""
    names = [t.name for t in spec["targets"]]
    fluid.io.save_persistables(exe, os.path.join(out, "persistables"), main)
    fluid.io.save_persistables(exe, os.path.join(out, "persistables_combined"), main, filename="persistables")
    fluid.io.save_params(exe, os.path.join(out, "params"), main)
    fluid.save(main, os.path.join(out, "checkpoint"))
    targets = [main.global_block().var(n) for n in names]
    fluid.io.save_inference_model(os.path.join(out, "inference"), spec["feeds"], targets, exe, main)
    fluid.io.save_inference_model(
        os.path.join(out, "inference_combined"), spec["feeds"], targets, exe, main, **COMBINED
    )


# the ways a checkpoint is loaded back into the program built again (beside load_inference_model)
LOADERS = (
    "persistables",
    "persistables_combined",
    "params",
    "fluid_load",
    "fluid_load_dir",
    "program_state",
    "program_state_dir",
)


def load_state(fluid, exe, out, how, main):
    """Loads the state saved in ``out`` into ``main`` the way ``how`` (one of LOADERS) names."""
    at = lambda name: os.path.join(out, name)  # noqa: E731
    if how == "persistables":
        fluid.io.load_persistables(exe, at("persistables"), main)
    elif how == "persistables_combined":
        fluid.io.load_persistables(exe, at("persistables_combined"), main, filename="persistables")
    elif how == "params":
        fluid.io.load_params(exe, at("params"), main)
    elif how in ("fluid_load", "fluid_load_dir"):
        fluid.load(main, at("checkpoint" if how == "fluid_load" else "persistables"), exe)
    elif how in ("program_state", "program_state_dir"):
        state = fluid.io.load_program_state(at("checkpoint" if how == "program_state" else "persistables"))
        fluid.io.set_program_state(main, state)
    else:
        raise ValueError(f"unknown way to load: {how}")


def run_outputs(fluid, exe, program, spec, feed):
    """{target name: array} (and its LoD as 'name@lod') of ``program`` on ``feed``."""
    got = exe.run(program, feed=feed, fetch_list=[t.name for t in spec["targets"]], return_numpy=False)
    out = {}
    for t, value in zip(spec["targets"], got):
        out[t.name] = np.array(value)
        if value.lod():
            out[t.name + "@lod"] = value.lod()
    return out


def train_step(fluid, exe, main, spec, feed):
    """The loss of one training step on ``feed``, then the parameters' values after it."""
    (loss,) = exe.run(main, feed=feed, fetch_list=[spec["loss"]])
    params = {
        p.name: np.array(fluid.global_scope().find_var(p.name).get_tensor())
        for p in main.global_block().all_parameters()
    }
    return np.array(loss), params


def record(fluid, family, out):
    """Fluid's run of ``family``: the saves, the batches, its outputs and its next step."""
    place = fluid.CPUPlace()
    exe = fluid.Executor(place)
    scope = fluid.core.Scope()
    with fluid.scope_guard(scope), fluid.unique_name.guard():  # each family's names as if it ran alone
        main, startup, test, spec = build(fluid, family)
        exe.run(startup)
        data = spec["data"]
        arrays, meta = (
            {},
            {
                "feeds": spec["feeds"],
                "targets": [t.name for t in spec["targets"]],
                "train": bool(spec.get("optimizer")),
                "lod": {},
                "loss": spec["loss"].name if spec.get("optimizer") else None,
            },
        )
        if meta["train"]:
            exe.run(main, feed=feed_dict(fluid, place, data["train0"]), fetch_list=[spec["loss"]])
        save_all(fluid, exe, main, spec, out)
        outs = run_outputs(fluid, exe, test, spec, feed_dict(fluid, place, data["infer"]))
        for name, value in outs.items():
            if name.endswith("@lod"):
                meta["lod"][name[:-4]] = value
            else:
                arrays["out:" + name] = value
        if meta["train"]:
            loss, params = train_step(fluid, exe, main, spec, feed_dict(fluid, place, data["train1"]))
            arrays["next:loss"] = loss
            arrays.update(("next:" + k, v) for k, v in params.items())
        for batch in ("infer", "train1"):
            for name, (array, lod) in data.get(batch, {}).items():
                arrays[f"{batch}:{name}"] = array
                if lod:
                    meta["lod"][f"{batch}:{name}"] = lod
    np.savez(os.path.join(out, "record.npz"), **arrays)
    with open(os.path.join(out, "record.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    return outs


def check_loaded(fluid, family, out, outs):
    """Fluid's own loaders on Fluid's saves give Fluid's outputs (a check of the recording)."""
    place = fluid.CPUPlace()
    exe = fluid.Executor(place)
    rec = np.load(os.path.join(out, "record.npz"))
    meta = json.load(open(os.path.join(out, "record.json")))
    feed = {n: (rec["infer:" + n], meta["lod"].get("infer:" + n)) for n in meta["feeds"]}
    for fmt, kwargs in (("inference", {}), ("inference_combined", COMBINED)):
        with fluid.scope_guard(fluid.core.Scope()):
            program, feeds, fetches = fluid.io.load_inference_model(os.path.join(out, fmt), exe, **kwargs)
            got = exe.run(program, feed=feed_dict(fluid, place, feed), fetch_list=fetches, return_numpy=False)
            for name, value in zip(meta["targets"], got):
                np.testing.assert_allclose(np.array(value), outs[name], rtol=1e-5, atol=1e-5, err_msg=f"{family}/{fmt}")


def main_record(families):
    import paddle.fluid as fluid

    for family in families:
        out = os.path.join(OUT, family)
        if os.path.isdir(out):
            import shutil

            shutil.rmtree(out)
        os.makedirs(out)
        outs = record(fluid, family, out)
        check_loaded(fluid, family, out, outs)
        size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(out) for f in fs)
        print(f"{family}: {len(FORMATS)} saves, {size / 1024:.0f} KB")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args and args[0] in ("pe-save", "fluid-check", "paddle-check"):  # (tools/fluid_saved_reverse.py imports
        sys.exit(f"{args[0]} is tools/fluid_saved_reverse.py's: python tools/fluid_saved_reverse.py {' '.join(args)}")
    main_record(args or list(FAMILIES))  # this module, never the reverse)
