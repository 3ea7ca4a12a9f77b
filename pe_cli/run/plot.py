"""``pe plot``: a run's curves from its metrics.jsonl, drawn with matplotlib (the optional ``plot``
extra: ``pip install 'pe-cli[plot]'``). One panel per metric, training rows as a line, evaluation
rows as points on the same steps axis."""
import importlib.util
import json
import os
import sys

from ..base.atomic_file import write_file
from ..base.errors import PeError
from .output_paths import check_output
from .predmetrics import regression_line


def load_rows(run_dir):
    path = os.path.join(run_dir, "metrics.jsonl")
    if not os.path.isfile(path):
        raise PeError(f"{run_dir} has no metrics.jsonl: give a run directory made by pe train")
    rows = []
    with open(path) as f:
        for line in f:
            try:
                rows.append(json.loads(line))
            except ValueError:
                continue        # a line cut short by an interrupted run
    if not rows:
        raise PeError(f"{path} has no rows yet")
    return rows


def plot(run_dir, out=None, metrics=None):
    """Draws the curves of ``run_dir`` into ``out`` (default: <run>/curves.png); returns the path."""
    check_output(out, "pe plot -o", "curves.png", inputs=[(os.path.join(run_dir, "metrics.jsonl"), "the metrics file")])
    try:
        import matplotlib
        matplotlib.use("Agg")
        matplotlib.rcParams["svg.fonttype"] = "none"        # an SVG's words stay text
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
    """' (held out: temp_max: RMSE ...)' of a regression run's eval.json (its last evaluation), or ''."""
    try:
        with open(os.path.join(run_dir, "eval.json")) as f:
            line = regression_line(json.load(f).get("prediction"))
    except (OSError, ValueError, AttributeError):
        return ""
    return f"\nheld out: {line}" if line else ""


def check_curves(cfg):
    """Fails before the run starts when output.curves asks for curves.png and matplotlib (the
    optional plot extra) is not installed."""
    if cfg.data["output"]["curves"] and not _matplotlib_installed():
        raise PeError("output.curves needs matplotlib: pip install 'pe-cli[plot]' (or pip install matplotlib), "
                      "or drop output.curves=true")


def _matplotlib_installed():
    try:
        return importlib.util.find_spec("matplotlib") is not None
    except ValueError:          # a module entry without a spec: treated as not installed
        return False


def plot_at_end(run_dir):
    """curves.png at the end of ``pe train``, where output.curves asks for it (matplotlib's import
    and the drawing cost a run about half a CPU-second: docs/PERFORMANCE.md). A failure to draw is
    a warning, never a failed run."""
    try:
        return plot(run_dir)
    except Exception as e:      # the run itself is done and recorded: say why, keep going
        print(f"pe: warning: could not draw {run_dir}/curves.png: {e}", file=sys.stderr)
        return None
