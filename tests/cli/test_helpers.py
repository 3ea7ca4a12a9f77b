"""Shared helpers of the CLI tests (no tests here): run the real ``pe`` command in a subprocess,
and snapshot a directory to prove it was left untouched."""

from paths import REPO
import csv
import hashlib
import os
import subprocess
import sys

REPO = REPO
_SCRIPT = os.path.join(os.path.dirname(sys.executable), "pe")
PE = [_SCRIPT] if os.path.exists(_SCRIPT) else [sys.executable, "-m", "pe_cli"]


def pe(*args, cwd=REPO, timeout=300, env=None):
    """Runs ``pe ARGS`` and returns the CompletedProcess (text stdout and stderr)."""
    full_env = dict(os.environ, **(env or {}))
    full_env.pop("PE_DEBUG", None)
    return subprocess.run(
        PE + [str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=full_env
    )


def snapshot(directory):
    """{relative path: (size, mtime_ns, sha1)} of every file under ``directory``; a run's ``.lock``
    only by its presence (it holds the pid of the pe process that last took the run's lock, which a
    resume takes before it reads, and refuses, anything)."""
    out = {}
    for root, dirs, files in os.walk(directory):
        for name in dirs + files:
            path = os.path.join(root, name)
            if name == ".lock":
                out[os.path.relpath(path, directory)] = "lock"
                continue
            rel = os.path.relpath(path, directory)
            if os.path.isdir(path):
                out[rel + "/"] = None
                continue
            st = os.stat(path)
            with open(path, "rb") as f:
                out[rel] = (st.st_size, st.st_mtime_ns, hashlib.sha1(f.read()).hexdigest())
    return out


def line_model(width):
    """The model file of a linear regression: feeds x [width] and y [1], an fc to 1, mean squared error
    (the CLI tests' smallest regression)."""
    return f"""\
name: line
feeds:
  x: {{shape: [{width}]}}
  y: {{shape: [1]}}
layers:
  - pred: {{type: fc, input: x, size: 1}}
  - cost: {{type: square_error_cost, input: pred, label: y}}
  - loss: {{type: mean, x: cost}}
loss: loss
fetches: [loss]
"""


def class_model(width, label="y", classes=3):
    """The model file of a softmax classifier: feeds x [width] and ``label`` (int64), an fc to
    ``classes`` logits, the mean softmax cross entropy (the CLI tests' smallest classifier)."""
    return f"""\
name: cls
feeds:
  x: {{shape: [{width}]}}
  {label}: {{shape: [1], dtype: int64}}
layers:
  - logits: {{type: fc, input: x, size: {classes}}}
  - xent: {{type: softmax_with_cross_entropy, logits: logits, label: {label}}}
  - loss: {{type: mean, x: xent}}
loss: loss
fetches: [loss]
"""


def data_maker(name):
    """The module of data/<name>/make_<name>.py (its ``write(path, rows, seed)`` makes a table like the
    bundled one), loaded from the repository."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"make_{name}", os.path.join(REPO, "data", name, f"make_{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MISSING = ("", "NA", "N/A", "NaN", "null", "None", "?")


def complete_penguins(path):
    """The bundled penguins rows without a missing field, written to ``path`` as CSV; returns them."""
    with open(os.path.join(REPO, "data", "penguins", "penguins.csv")) as f:
        rows = [r for r in csv.DictReader(f) if not any(v.strip() in MISSING for v in r.values())]
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return rows
