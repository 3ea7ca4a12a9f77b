"""A run directory's metrics and fetched values (run/rundir.py lists the files of a run directory):
metrics.csv and metrics.jsonl appended row by row, fetches.npz or fetches/<name>-step-N.npy."""

import csv
import io
import json
import os
import re
import sys

import numpy as np

from ..base.atomic_file import atomic_write, write_file


class Metrics:
    """metrics.csv and metrics.jsonl, appended row by row (flushed, so a crash keeps the rows)."""

    def __init__(self, run_dir, fetch_names, resume_step=None):
        self.columns = ["phase", "step", "epoch"] + list(fetch_names) + ["lr", "samples_per_s", "wall_s"]
        self.csv_path = os.path.join(run_dir, "metrics.csv")
        self.jsonl_path = os.path.join(run_dir, "metrics.jsonl")
        if resume_step is not None:
            self._truncate(resume_step)
        new = not os.path.exists(self.csv_path)
        self._csv = open(self.csv_path, "a", newline="")
        self._jsonl = open(self.jsonl_path, "a")
        self._writer = csv.DictWriter(self._csv, self.columns, extrasaction="ignore")
        if new:
            self._writer.writeheader()
            self._csv.flush()

    def _truncate(self, step):
        """Drops rows written after the checkpoint we resume from (they will be produced again)."""
        rows = []
        if os.path.exists(self.jsonl_path):
            with open(self.jsonl_path) as f:
                lines = [line for line in f if line.strip()]
            for n, line in enumerate(lines):
                try:
                    rows.append(json.loads(line))
                except ValueError:  # a line cut short (a full disk, a kill): dropped, said once
                    print(f"pe: warning: {self.jsonl_path}:{n + 1} is a partly written line; dropped", file=sys.stderr)
        rows = [r for r in rows if isinstance(r, dict) and r.get("step", 0) <= step]
        atomic_write(self.jsonl_path, "".join(json.dumps(r) + "\n" for r in rows))
        buf = io.StringIO()
        writer = csv.DictWriter(buf, self.columns, extrasaction="ignore")
        writer.writeheader()
        for r in rows:
            writer.writerow({k: _csv_value(r.get(k)) for k in self.columns})
        atomic_write(self.csv_path, buf.getvalue())

    def write(self, row):
        """Appends one row to both files, each as one whole line written at once."""
        line = io.StringIO()
        csv.DictWriter(line, self.columns, extrasaction="ignore").writerow(
            {k: _csv_value(row.get(k)) for k in self.columns}
        )
        self._csv.write(line.getvalue())
        self._csv.flush()
        self._jsonl.write(json.dumps(row) + "\n")
        self._jsonl.flush()

    def close(self):
        self._csv.close()
        self._jsonl.close()


def _csv_value(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.6g}"
    return v


class FetchStore:
    """Fetched values at each report: ``fetches.npz`` (``step`` plus one stacked array per fetch;
    fetches whose shape changes between steps are stored as ``<name>@step-N``) or one
    ``fetches/<name>-step-N.npy`` per value."""

    def __init__(self, run_dir, mode, resume_step=None):
        self.mode = mode
        self.run_dir = run_dir
        self.records = []  # [(step, {name: array})]
        if mode == "npz" and resume_step is not None:
            self._load_previous(resume_step)
        if mode == "npy":
            os.makedirs(os.path.join(run_dir, "fetches"), exist_ok=True)

    def _load_previous(self, resume_step):
        path = os.path.join(self.run_dir, "fetches.npz")
        if not os.path.exists(path):
            return
        with np.load(path, allow_pickle=False) as z:
            steps = list(z["step"]) if "step" in z.files else []
            stacked = {k: z[k] for k in z.files if k != "step" and "@step-" not in k}
            single = {k: z[k] for k in z.files if "@step-" in k}
        for i, step in enumerate(steps):
            if step > resume_step:
                continue
            values = {k: v[i] for k, v in stacked.items()}
            values.update({k.split("@step-")[0]: v for k, v in single.items() if k.endswith(f"@step-{step}")})
            self.records.append((int(step), values))

    def add(self, step, values):
        if self.mode == "none":
            return
        if self.mode == "npy":
            for name, value in values.items():
                write_file(
                    os.path.join(self.run_dir, "fetches", f"{_safe(name)}-step-{step}.npy"),
                    lambda f, v=value: np.save(f, v, allow_pickle=False),
                )
            return
        self.records.append((step, values))

    def flush(self):
        if self.mode != "npz" or not self.records:
            return
        arrays = {"step": np.asarray([s for s, _ in self.records], dtype=np.int64)}
        names = []
        for _, values in self.records:
            names += [n for n in values if n not in names]
        for name in names:
            items = [(s, v[name]) for s, v in self.records if name in v]
            shapes = {np.shape(a) for _, a in items}
            if len(shapes) == 1 and len(items) == len(self.records):
                arrays[name] = np.stack([a for _, a in items])
            else:
                for s, a in items:
                    arrays[f"{name}@step-{s}"] = a
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        atomic_write(os.path.join(self.run_dir, "fetches.npz"), buf.getvalue())


def _safe(name):
    return re.sub(r"[^A-Za-z0-9_.\-]", "_", name)
