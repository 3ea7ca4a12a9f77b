"""``pe plot``: a run's curves from its metrics.jsonl, drawn with matplotlib (the optional ``plot``
extra: ``pip install 'pe-cli[plot]'``). One panel per metric, training rows as a line, evaluation
rows as points on the same steps axis."""

import importlib.util
import json
import math
import os
import sys

from ..base.atomic_file import write_file
from ..base.errors import PeError
from ..base.limits import file_kind, regular_file
from .output_paths import check_output
from .predmetrics import held_out_lines, regression_line


MAX_METRICS_BYTES = 1 << 30  # a metrics.jsonl (a row per report: a long run's is a few MB)


def load_rows(run_dir):
    """The rows of ``run_dir``'s metrics.jsonl that pe could have written: a JSON object with a
    phase, a whole step >= 0 and finite numbers. A line that is not one (cut short by a kill, edited:
    a step that is text, a list, NaN) is skipped, and so is a value that is not a finite number; the
    skips are one warning with their count, never an error from deep inside the drawing."""
    path = os.path.join(run_dir, "metrics.jsonl")
    if file_kind(path) == "missing":
        raise PeError(f"{run_dir} has no metrics.jsonl: give a run directory made by pe train")
    regular_file(path, "metrics file")
    if os.path.getsize(path) > MAX_METRICS_BYTES:
        raise PeError(
            f"{path} is {os.path.getsize(path):,} bytes, above the {MAX_METRICS_BYTES:,} pe plot reads; "
            f"is it a metrics file pe train wrote?"
        )
    rows, skipped, first, values = [], 0, None, 0
    with open(path, "rb") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            row, why = _row(line)
            if row is None:
                skipped += 1
                first = first or f"line {n}: {why}"
            else:
                rows.append({k: v for k, v in row.items() if k in ("phase", "step") or _number(v)})
                values += len(row) - len(rows[-1])
    if skipped or values:
        lines = f"{skipped} line(s) that are not rows pe wrote ({first})" if skipped else ""
        print(
            f"pe: warning: {path}: skipped {lines}{' and ' if skipped and values else ''}"
            f"{f'{values} value(s) that are not finite numbers' if values else ''}",
            file=sys.stderr,
        )
    if not rows:
        raise PeError(f"{path} has no rows yet")
    return rows


def _row(line):
    """(the row the metrics line holds, None) or (None, why it is not one)."""
    try:
        row = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return None, "not a JSON line"
    if not isinstance(row, dict) or row.get("phase") not in ("train", "eval"):
        return None, "not a row with a phase (train or eval)"
    step = row.get("step")
    if not isinstance(step, int) or isinstance(step, bool) or step < 0:
        return None, f"the step is {str(step)[:20]!r}, not a whole number >= 0"
    return row, None


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def plot(run_dir, out=None, metrics=None):
    """Draws the curves of ``run_dir`` into ``out`` (default: <run>/curves.png); returns the path."""
    check_output(out, "pe plot -o", "curves.png", inputs=[(os.path.join(run_dir, "metrics.jsonl"), "the metrics file")])
    try:
        import matplotlib

        matplotlib.use("Agg")
        matplotlib.rcParams["svg.fonttype"] = "none"  # an SVG's words stay text
        import matplotlib.pyplot as plt
    except ImportError:
        raise PeError("pe plot needs matplotlib: pip install 'pe-cli[plot]' (or pip install matplotlib)") from None
    rows = load_rows(run_dir)
    skip = {"phase", "step", "epoch", "samples_per_s", "wall_s"}
    names = list(dict.fromkeys(k for r in rows for k in r if k not in skip and r[k] is not None))  # no empty panel
    if metrics:
        unknown = [m for m in metrics if m not in names]
        if unknown:
            raise PeError(f"--metric {','.join(unknown)}: not in {run_dir}/metrics.jsonl (it has {', '.join(names)})")
        names = list(metrics)
    fig, axes = plt.subplots(len(names), 1, figsize=(7, 2.6 * len(names)), sharex=True, squeeze=False)
    for ax, name in zip(axes[:, 0], names):
        for phase, style in (("train", "-"), ("eval", "o--")):
            points = [(r["step"], r[name]) for r in rows if r.get("phase") == phase and r.get(name) is not None]
            if points:
                ax.plot(*zip(*points), style, label=phase, markersize=4)
        ax.set_ylabel(name)
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="best")
    axes[-1, 0].set_xlabel("step")
    fig.suptitle(os.path.basename(os.path.normpath(run_dir)) + _held_out(run_dir))
    fig.tight_layout()
    out = out or os.path.join(run_dir, "curves.png")
    fmt = os.path.splitext(out)[1][1:].lower() or "png"
    if fmt not in fig.canvas.get_supported_filetypes():
        plt.close(fig)
        raise PeError(f"pe plot -o {out}: matplotlib cannot write .{fmt} images; end the name with .png, .svg or .pdf")
    try:
        write_file(out, lambda f: fig.savefig(f, dpi=100, format=fmt))
    finally:
        plt.close(fig)
    return out


def _held_out(run_dir):
    """' (held out: temp_max: RMSE ...)' of a regression run's eval.json (its last evaluation), or '';
    a run with several outputs: each one's line (predmetrics.held_out_lines), joined."""
    try:
        with open(os.path.join(run_dir, "eval.json")) as f:
            prediction = json.load(f).get("prediction")
        line = "; ".join(held_out_lines(prediction)) or regression_line(prediction)
    except (OSError, ValueError, AttributeError):
        return ""
    return f"\nheld out: {line}" if line else ""


def check_curves(cfg):
    """Fails before the run starts when output.curves asks for curves.png and matplotlib (the
    optional plot extra) is not installed."""
    if cfg.data["output"]["curves"] and not _matplotlib_installed():
        raise PeError(
            "output.curves needs matplotlib: pip install 'pe-cli[plot]' (or pip install matplotlib), "
            "or drop output.curves=true"
        )


def _matplotlib_installed():
    try:
        return importlib.util.find_spec("matplotlib") is not None
    except ValueError:  # a module entry without a spec: treated as not installed
        return False


def plot_at_end(run_dir):
    """curves.png at the end of ``pe train``, where output.curves asks for it (matplotlib's import
    and the drawing cost a run about half a CPU-second: docs/PERFORMANCE.md). A failure to draw is
    a warning, never a failed run."""
    try:
        return plot(run_dir)
    except Exception as e:  # the run itself is done and recorded: say why, keep going
        print(f"pe: warning: could not draw {run_dir}/curves.png: {e}", file=sys.stderr)
        return None
