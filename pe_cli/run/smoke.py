"""``pe smoke``: every config for a few steps on a small slice of its data. A config passes when it
loads, its programs build, every loss is finite and the loss falls: the mean of the last quarter of
the steps is below the mean of the first quarter. A config's data.eval (its first N samples, as
data.train's) is evaluated once, at the end, so the evaluation and what watches it (keep_best,
early_stopping) are checked too. CI runs it over configs/."""

import glob
import math
import os
import shutil
import tempfile
import time

from ..config import ConfigError, load_config
from ..base.errors import PeError
from ..kernels import finish_compiling
from .trainer import train


def default_configs():
    return sorted(glob.glob(os.path.join("configs", "*.yaml")) + glob.glob(os.path.join("configs", "*.yml")))


def smoke_one(path, steps, samples, out_dir):
    """Returns a row: config, model, steps, first, last, seconds, status, detail."""
    row = {
        "config": path,
        "model": "-",
        "steps": 0,
        "first": math.nan,
        "last": math.nan,
        "seconds": 0.0,
        "status": "FAIL",
        "detail": "",
    }
    t0 = time.monotonic()
    try:
        cfg = load_config(path)
        row["model"] = cfg.model.name
        d = cfg.data
        if d["data"]["train"] is None:
            raise cfg.doc.error(("data",), "data.train is not given", "smoke trains on data.train")
        for split in ("train", "eval"):  # data.eval stays (keep_best, early_stopping watch it): one evaluation
            if d["data"][split] is not None:
                d["data"][split]["limit"] = min(samples, d["data"][split]["limit"] or samples)
        d["eval"]["every_epochs"], d["eval"]["every_steps"] = 0, None
        d["epochs"] = max(d["epochs"], 1_000_000)  # max_steps decides
        d["max_steps"] = steps
        d["fetch"]["every"] = steps
        d["fetch"]["save"] = "none"
        d["checkpoint"]["every_steps"] = None
        d["checkpoint"]["every_epochs"] = 0
        d["checkpoint"]["keep"] = 1
        d["output"]["graphs"] = []
        d["output"]["dir"] = os.path.join(out_dir, cfg.name)
        result = train(cfg, quiet=True)
        losses = [loss for _, loss in result.history]
        row["steps"] = len(losses)
        k = max(1, len(losses) // 4)
        first, last = sum(losses[:k]) / k, sum(losses[-k:]) / k
        row["first"], row["last"] = first, last
        if len(losses) < steps:
            row["detail"] = f"ran {len(losses)} of {steps} steps"
        elif not all(math.isfinite(x) for x in losses):
            row["detail"] = "a loss is not finite"
        elif not last < first:
            row["detail"] = f"the loss did not fall ({first:.4f} -> {last:.4f})"
        else:
            row["status"] = "ok"
    except ConfigError as e:
        row["detail"] = e.line()
    except PeError as e:
        row["detail"] = str(e)
    row["seconds"] = time.monotonic() - t0
    return row


def run_smoke(configs, steps=20, samples=512, keep=False, echo=print):
    configs = configs or default_configs()
    if not configs:
        raise PeError("pe smoke: no configs given and configs/ has no .yaml files")
    out_dir = tempfile.mkdtemp(prefix="pe-smoke-")
    rows = []
    try:
        cw = max(len("config"), *(len(c) for c in configs))
        mw = max(
            20, *(len(os.path.splitext(os.path.basename(c))[0]) for c in configs)
        )  # model names are known only later
        header = (
            f"{'config':<{cw}} {'model':<{mw}} {'steps':>5} {'first loss':>10} {'last loss':>10} {'time':>7}  status"
        )
        echo(header)
        echo("-" * len(header))
        for path in configs:
            row = smoke_one(path, steps, samples, out_dir)
            rows.append(row)
            echo(
                f"{row['config']:<{cw}} {row['model']:<{mw}} {row['steps']:>5} {row['first']:>10.4f} "
                f"{row['last']:>10.4f} {row['seconds']:>6.1f}s  {row['status']}"
            )
            if row["detail"]:
                echo(f"    {row['detail']}")
        finish_compiling()  # the parallel loops a first run compiles in the background: cached now
        ok = all(r["status"] == "ok" for r in rows)
        failed = sum(r["status"] != "ok" for r in rows)
        echo(f"{len(rows) - failed} of {len(rows)} configs passed" + ("" if ok else f"; {failed} failed"))
        if keep:
            echo(f"run directories kept in {out_dir}")
    finally:
        if not keep:
            shutil.rmtree(out_dir, ignore_errors=True)
    return rows, ok
