"""``pe graph``: the program of a run config or a model file, as DOT or text, and rendering."""

import shutil
import subprocess

import os

from ..base.atomic_file import atomic_write
from ..base.output_rule import check_side_file
from ..config import ConfigError, load_config, load_model
from ..config.sizes import has_auto
from ..config.yamlfile import load_yaml
from .build import build_programs
from .graph import passes_text, program_dot, program_text, ssa_dot
from .layer_graph import layer_dot
from .output_paths import check_output
from .preprocessing import fill_data_sizes, fit_preprocessing, saved_preprocessing
from ..base.errors import UsageError
from ..base.limits import check
from .run_record import config_record
from .rundir import read_state, resolve_checkpoint


def run_record(path, overrides, command):
    """``path`` unchanged (a config or a model file: ``(path, "", None)``), or, given a run directory or
    a checkpoint in one: (the config record in force at that checkpoint, the best where the run kept
    one; the line that says so; the run directory, whose preprocessing.json gives the ``auto`` sizes)."""
    if not (os.path.isdir(path) or os.path.basename(os.path.normpath(path)) in ("last", "best")):
        return path, "", None
    ckpt, run_dir = resolve_checkpoint(path, prefer_best=True)
    step = read_state(ckpt).get("step") or 0
    record = config_record(run_dir, step)
    if record is None:
        raise UsageError(f"{command}: {run_dir} holds no config.yaml (the run's record); give the run's config")
    if overrides:
        raise UsageError(f"{command}: a run's model is its record ({record}); drop {' '.join(overrides)}")
    return record, f"checkpoint: {ckpt} (step {step}); model from {record}\n", run_dir


def load_spec(path, overrides, run_dir=None):
    """(model spec, run config or None) of ``path``, a run config or a model file. A run config's
    ``auto`` sizes are filled from ``run_dir``'s preprocessing.json (a run's record), else from its
    data.preprocessing fitted on data.train now (config/sizes.py)."""
    doc = load_yaml(path, "file")
    if isinstance(doc.data, dict) and "model" in doc.data:
        cfg = load_config(path, overrides)
        if run_dir is not None or has_auto(cfg.model):
            fill_data_sizes(cfg, saved_preprocessing(cfg, run_dir) if run_dir is not None else fit_preprocessing(cfg))
        return cfg.model, cfg
    if overrides:
        raise ConfigError(
            "overrides apply to run configs, not model files",
            None,
            None,
            f"give a run config, or drop {' '.join(overrides)}",
        )
    return load_model(path), None  # auto is an error there: no data to decide it


def graph_output(path, overrides, fmt, phase, ssa, devices, level="op"):
    """(text, default output name) for the program of ``path`` (a run config or a model file);
    ``level='layer'``: one box per layer of the model file (the forward phase, DOT). A run directory or
    a checkpoint: the model of its record (run_record)."""
    path, _, run_dir = run_record(path, overrides, "pe graph")
    spec, cfg = load_spec(path, overrides, run_dir)
    if level == "layer":
        programs = build_programs(spec, cfg, with_optimizer=False)
        return layer_dot(spec, programs.test, f"{spec.name} (layers)"), f"{spec.name}-layers.dot"
    programs = build_programs(spec, cfg, with_optimizer=phase == "train" or ssa)
    if ssa:
        n = devices or (cfg.data["devices"] if cfg is not None and cfg.data["devices"] > 1 else 2)
        check("devices", n, "--devices")
        return ssa_dot(programs, n, cfg), f"{spec.name}-ssa.dot"
    program = programs.main if phase == "train" else programs.test
    title = f"{spec.name} ({phase})"
    if fmt == "text":
        return program_text(program, title), f"{spec.name}-{phase}.txt"
    return program_dot(program, title), f"{spec.name}-{phase}.dot"


def passes_output(path, overrides, devices):
    """``pe graph --passes``: what each graph pass changes in the multi-device graph of ``path``."""
    path, _, run_dir = run_record(path, overrides, "pe graph")
    spec, cfg = load_spec(path, overrides, run_dir)
    programs = build_programs(spec, cfg, with_optimizer=True)
    n = check("devices", devices or (cfg.data["devices"] if cfg is not None else 1), "--devices")
    return passes_text(programs, n, cfg)


def render_dot(dot_path, image_path, fmt):
    """Runs graphviz's dot. Returns (ok, message)."""
    dot = shutil.which("dot")
    if dot is None:
        return False, (
            f"wrote {dot_path}; graphviz's 'dot' program is not installed, so it was not drawn. "
            f"Install graphviz (Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz), "
            f"then run: dot -T{fmt} {dot_path} -o {image_path}"
        )
    proc = subprocess.run([dot, f"-T{fmt}", dot_path], capture_output=True)
    if proc.returncode != 0:
        return False, f"dot failed on {dot_path}: {proc.stderr.decode(errors='replace').strip()}"
    atomic_write(image_path, proc.stdout)
    return True, f"wrote {dot_path} and {image_path}"


def write_rendered(path, output, default_name, text, fmt):
    """``pe graph --render FMT [-o OUTPUT]``: the DOT ``text`` of ``path`` written (OUTPUT, or its .dot
    beside an image OUTPUT, or ``default_name``) and drawn into the image beside it. A DOT file the
    user did not name is a side file: never one already there with other bytes (output_rule).
    Returns (ok, message)."""
    read = [(path, "the config or model file")]
    named, output = output, output or default_name
    dot_path = output if output.endswith(".dot") else os.path.splitext(output)[0] + ".dot"
    check_output(dot_path, "pe graph -o", "graph.dot", inputs=read)
    if dot_path != named:
        check_side_file(dot_path, text, "pe graph --render" if named is None else "pe graph -o", named or dot_path)
    image = os.path.splitext(output)[0] + "." + fmt
    check_output(image, "pe graph --render", "graph." + fmt, inputs=read)
    atomic_write(dot_path, text)
    return render_dot(dot_path, image, fmt)
