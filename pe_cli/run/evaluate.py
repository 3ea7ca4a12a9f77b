"""``pe eval``: a checkpoint's parameters in the test program, each fetch averaged over data.eval."""
import io
import json
import os

import numpy as np

from .programs import build_programs
from .rundir import atomic_write, read_state, resolve_checkpoint
from .trainer import make_place, run_eval


def evaluate(cfg, checkpoint, out=None, save_fetches=False):
    """Returns {"checkpoint", "step", "samples", "metrics", "out", "fetches"} and writes ``out``
    (default: eval.json in the checkpoint's run directory)."""
    from ..executor import Executor, Scope, scope_guard
    from ..io import load_persistables
    eval_data = cfg.load_data("eval")
    place = make_place(cfg)
    programs = build_programs(cfg.model, cfg, with_optimizer=False)
    ckpt, run_dir = resolve_checkpoint(checkpoint)
    state = read_state(ckpt)
    names = cfg.eval_fetches
    if not names:
        raise cfg.doc.error(("eval", "fetches"), "nothing to evaluate", "list layers under eval.fetches")
    fetch_vars = [v.name for v in programs.fetch_vars(names)]
    exe = Executor(place)
    with scope_guard(Scope()):
        exe.run(programs.startup)
        load_persistables(exe, ckpt, programs.test)
        means, raw, samples = run_eval(exe, programs.test, eval_data, names, fetch_vars, keep_raw=save_fetches)
    out = out or os.path.join(run_dir, "eval.json")
    result = {"checkpoint": ckpt, "step": state.get("step"), "samples": samples, "metrics": means, "out": out}
    if save_fetches:
        fetches = os.path.splitext(out)[0] + "-fetches.npz"
        buf = io.BytesIO()
        np.savez(buf, **raw)
        atomic_write(fetches, buf.getvalue())
        result["fetches"] = fetches
    atomic_write(out, json.dumps({k: v for k, v in result.items() if k != "out"}, indent=1) + "\n")
    return result
