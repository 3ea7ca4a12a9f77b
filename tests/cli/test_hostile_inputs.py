"""The hostile-input corpus (issue 10): over 100 broken, malicious and huge inputs across YAML, the
schema, model files, data, checkpoints and the command line. Each is given to the real ``pe`` in a
fresh directory, under a 2 GiB memory cap and a time limit, and must exit non-zero with a few lines
that name the problem, no traceback, nothing written outside the test's directory, no half-made run
directory, and an earlier run left byte for byte as it was.

A case is (id, files, args, expect): ``files`` maps a path inside the case directory to its content
(str or bytes), to ``FIFO``, or to a callable ``f(path)`` that makes it; ``args`` follow ``pe``; the
base files (``run.yaml``, ``model.yaml`` and the bundled data as ``data/``) are there unless a case
replaces them; ``expect`` is text the error must contain.
"""

import gzip
import os
import resource
import shutil
import subprocess

import numpy as np
import pytest

from tests.cli.test_helpers import PE, REPO, snapshot

FIFO = object()
MODEL = """name: tiny
feeds:
  image: {shape: [1, 28, 28], dtype: float32}
  label: {shape: [1], dtype: int64}
layers:
  - fc1:    {type: fc, input: image, size: 16, act: relu}
  - logits: {type: fc, input: fc1, size: 10}
  - xent:   {type: softmax_with_cross_entropy, logits: logits, label: label}
  - loss:   {type: mean, x: xent}
loss: loss
fetches: [loss]
"""
RUN = """model: model.yaml
data:
  train: {format: mnist, path: data/mnist, split: train, limit: 64}
  eval: {format: mnist, path: data/mnist, split: eval, limit: 64}
  batch_size: 32
optimizer: {type: SGD, learning_rate: 0.1}
"""


def run_with(extra="", **replace):
    """The base run config with lines appended (``extra``) or top-level values replaced."""
    text = RUN
    for key, value in replace.items():
        text = "\n".join(line for line in text.splitlines() if not line.startswith(f"{key}:")) + "\n"
        text += f"{key}: {value}\n"
    return text + extra


def model_with(old, new):
    assert old in MODEL
    return MODEL.replace(old, new)


def idx_file(header_shape, body, compress=False):
    data = bytes([0, 0, 8, len(header_shape)]) + np.asarray(header_shape, ">u4").tobytes() + body

    def make(path):
        with (gzip.open if compress else open)(path, "wb") as f:
            f.write(data)

    return make


def alias_bomb(levels=9):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines) + f"\nmodel: *a{levels}\n"


def merge_bomb():
    lines = ["m0: &m0 {k0: 1, k1: 1, k2: 1, k3: 1, k4: 1, k5: 1, k6: 1, k7: 1, k8: 1, k9: 1}"]
    for i in range(1, 9):
        keys = ", ".join(f"c{j}: *m{i - 1}" for j in range(10))
        lines.append(f"m{i}: &m{i} {{<<: *m{i - 1}, {keys}}}")
    return "\n".join(lines) + "\nmodel: model.yaml\n"


def csv_data(text):
    return {
        "data.csv": text,
        "run.yaml": run_with().replace(
            "{format: mnist, path: data/mnist, split: train, limit: 64}", "{format: csv, path: data.csv}"
        ),
    }


def train_source(source):
    return run_with().replace("{format: mnist, path: data/mnist, split: train, limit: 64}", source)


def npy_pickle(path):
    np.save(path, np.array([{"x": 1}], dtype=object), allow_pickle=True)


YAML_CASES = [
    ("config-fifo", {"cfg.yaml": FIFO}, ["train", "cfg.yaml"], "not a regular file"),
    ("config-dev-zero", {}, ["train", "/dev/zero"], "not a YAML file"),
    ("config-directory", {"cfg.yaml/x": "a"}, ["train", "cfg.yaml"], "directory"),
    ("config-huge", {"cfg.yaml": "# " + "x" * (2 << 20) + "\n"}, ["train", "cfg.yaml"], "at most"),
    ("config-alias-bomb", {"cfg.yaml": alias_bomb()}, ["train", "cfg.yaml"], "expands to more than"),
    ("config-merge-bomb", {"cfg.yaml": merge_bomb()}, ["train", "cfg.yaml"], "expands to more than"),
    (
        "config-deep-nesting",
        {"cfg.yaml": "model: " + "[" * 100 + "]" * 100 + "\n"},
        ["train", "cfg.yaml"],
        "nesting deeper",
    ),
    (
        "config-very-deep-nesting",
        {"cfg.yaml": "model: " + "[" * 300000 + "]" * 300000 + "\n"},
        ["train", "cfg.yaml"],
        "nesting deeper",
    ),
    ("config-long-scalar", {"cfg.yaml": "model: " + "m" * 50000 + "\n"}, ["train", "cfg.yaml"], "characters"),
    ("config-not-utf8", {"cfg.yaml": b"model: \xff\xfe\xfa\n"}, ["train", "cfg.yaml"], "not UTF-8"),
    ("config-empty", {"cfg.yaml": ""}, ["train", "cfg.yaml"], "empty"),
    ("config-only-comments", {"cfg.yaml": "# nothing\n# here\n"}, ["train", "cfg.yaml"], "empty"),
    ("config-two-documents", {"cfg.yaml": "model: model.yaml\n---\nmodel: x.yaml\n"}, ["train", "cfg.yaml"], "YAML"),
    ("config-tabs", {"cfg.yaml": "data:\n\ttrain: x\n"}, ["train", "cfg.yaml"], "tabs"),
    (
        "config-python-tag",
        {"cfg.yaml": "model: !!python/object/apply:os.system ['touch pwned']\n"},
        ["train", "cfg.yaml"],
        "not allowed",
    ),
    ("config-custom-tag", {"cfg.yaml": "model: !include model.yaml\n"}, ["train", "cfg.yaml"], "not allowed"),
    ("config-recursive-alias", {"cfg.yaml": "a: &a [1, *a]\nmodel: model.yaml\n"}, ["train", "cfg.yaml"], ""),
    ("config-duplicate-key", {"cfg.yaml": RUN + "model: other.yaml\n"}, ["train", "cfg.yaml"], "duplicate key"),
    ("config-null-key", {"cfg.yaml": RUN + "null: 1\n"}, ["train", "cfg.yaml"], "not a name"),
    ("config-list", {"cfg.yaml": "- model.yaml\n"}, ["train", "cfg.yaml"], "must be a mapping"),
    ("config-scalar", {"cfg.yaml": "hello\n"}, ["train", "cfg.yaml"], "must be a mapping"),
    ("config-passwd", {}, ["train", "/etc/passwd"], "not a YAML file"),
    ("config-no-suffix", {"cfg.txt": RUN}, ["train", "cfg.txt"], "not a YAML file"),
    ("config-missing", {}, ["train", "nope.yaml"], "no such"),
    ("model-passwd", {"run.yaml": run_with(model="/etc/passwd")}, ["train", "run.yaml"], "not a YAML file"),
    ("model-shadow", {"run.yaml": run_with(model="/etc/shadow")}, ["train", "run.yaml"], "not a YAML file"),
    ("model-missing", {"run.yaml": run_with(model="nope.yaml")}, ["train", "run.yaml"], "does not exist"),
    (
        "model-directory",
        {"run.yaml": run_with(model="sub.yaml"), "sub.yaml/x": "a"},
        ["train", "run.yaml"],
        "directory",
    ),
    (
        "model-fifo",
        {"run.yaml": run_with(model="pipe.yaml"), "pipe.yaml": FIFO},
        ["train", "run.yaml"],
        "not a regular file",
    ),
    (
        "model-include-passwd",
        {"model.yaml": "include: /etc/passwd\n" + MODEL},
        ["train", "run.yaml"],
        "not a YAML file",
    ),
    ("model-include-self", {"model.yaml": "include: model.yaml\n" + MODEL}, ["train", "run.yaml"], "include"),
    ("model-not-utf8", {"model.yaml": b"name: \xff\xfe\n"}, ["train", "run.yaml"], "not UTF-8"),
    ("model-huge", {"model.yaml": MODEL + "# " + "y" * (2 << 20) + "\n"}, ["train", "run.yaml"], "at most"),
    ("model-alias-bomb", {"model.yaml": alias_bomb()}, ["train", "run.yaml"], "expands to more than"),
]

SCHEMA_CASES = [
    ("unknown-top-key", {"run.yaml": run_with("learnin_rate: 0.1\n")}, ["train", "run.yaml"], "unknown key"),
    (
        "lr-nan",
        {"run.yaml": run_with(optimizer="{type: SGD, learning_rate: .nan}")},
        ["train", "run.yaml"],
        "not a finite number",
    ),
    (
        "lr-inf",
        {"run.yaml": run_with(optimizer="{type: SGD, learning_rate: .inf}")},
        ["train", "run.yaml"],
        "not a finite number",
    ),
    (
        "lr-string",
        {"run.yaml": run_with(optimizer="{type: SGD, learning_rate: fast}")},
        ["train", "run.yaml"],
        "learning_rate",
    ),
    ("epochs-negative", {"run.yaml": run_with(epochs="-1")}, ["train", "run.yaml"], "epochs"),
    ("epochs-huge-float", {"run.yaml": run_with(epochs="1e100")}, ["train", "run.yaml"], "epochs"),
    ("devices-zero", {"run.yaml": run_with(devices="0")}, ["train", "run.yaml"], "devices"),
    (
        "batch-size-zero",
        {"run.yaml": run_with().replace("batch_size: 32", "batch_size: 0")},
        ["train", "run.yaml"],
        "batch_size",
    ),
    (
        "batch-size-string",
        {"run.yaml": run_with().replace("batch_size: 32", 'batch_size: "32"')},
        ["train", "run.yaml"],
        "batch_size",
    ),
    ("place-tpu", {"run.yaml": run_with(place="tpu")}, ["train", "run.yaml"], "place"),
    ("seed-negative", {"run.yaml": run_with(seed="-3")}, ["train", "run.yaml"], "seed"),
    (
        "optimizer-unknown",
        {"run.yaml": run_with(optimizer="{type: Sgdd, learning_rate: 0.1}")},
        ["train", "run.yaml"],
        "unknown optimizer 'Sgdd'",
    ),
    (
        "optimizer-bad-arg",
        {"run.yaml": run_with(optimizer="{type: SGD, learning_rat: 0.1}")},
        ["train", "run.yaml"],
        "unknown argument",
    ),
    (
        "regularizer-nan",
        {
            "run.yaml": run_with(
                optimizer="{type: SGD, learning_rate: 0.1, regularization: {type: L2Decay, regularization_coeff: .nan}}"
            )
        },
        ["train", "run.yaml"],
        "not a finite number",
    ),
    (
        "graphviz-absolute",
        {"run.yaml": run_with("build_strategy: {debug_graphviz_path: /tmp/pe-evil.dot}\n")},
        ["train", "run.yaml"],
        "leaves the run directory",
    ),
    (
        "graphviz-dotdot",
        {"run.yaml": run_with("build_strategy: {debug_graphviz_path: ../../evil.dot}\n")},
        ["train", "run.yaml"],
        "leaves the run directory",
    ),
    (
        "threads-negative",
        {"run.yaml": run_with("exec_strategy: {num_threads: -1}\n")},
        ["train", "run.yaml"],
        "num_threads",
    ),
    ("fetch-every-zero", {"run.yaml": run_with("fetch: {every: 0}\n")}, ["train", "run.yaml"], "every"),
    ("checkpoint-keep-negative", {"run.yaml": run_with("checkpoint: {keep: -1}\n")}, ["train", "run.yaml"], "keep"),
    (
        "strategy-unknown",
        {"run.yaml": run_with("build_strategy: {fuse_everything: true}\n")},
        ["train", "run.yaml"],
        "fuse_everything",
    ),
]

MODEL_CASES = [
    (
        "fc-size-huge",
        {"model.yaml": model_with("size: 16", "size: 1000000000000")},
        ["train", "run.yaml"],
        "more than this machine's",
    ),
    ("fc-size-zero", {"model.yaml": model_with("size: 16", "size: 0")}, ["train", "run.yaml"], "below 1"),
    ("fc-size-negative", {"model.yaml": model_with("size: 16", "size: -5")}, ["train", "run.yaml"], "below 1"),
    ("fc-size-string", {"model.yaml": model_with("size: 16", 'size: "16"')}, ["train", "run.yaml"], "size"),
    ("fc-size-nan", {"model.yaml": model_with("size: 16", "size: .nan")}, ["train", "run.yaml"], "not a finite number"),
    (
        "layer-unknown",
        {"model.yaml": model_with("type: fc, input: image", "type: fcc, input: image")},
        ["train", "run.yaml"],
        "did you mean",
    ),
    ("layer-input-missing", {"model.yaml": model_with("input: fc1", "input: fc9")}, ["train", "run.yaml"], "fc9"),
    (
        "layer-name-too-long",
        {
            "model.yaml": model_with(
                "  - fc1:    {type: fc, input: image", "  - " + "n" * 300 + ": {type: fc, input: image"
            ).replace("input: fc1", "input: " + "n" * 300)
        },
        ["train", "run.yaml"],
        "bytes",
    ),
    (
        "param-name-too-long",
        {"model.yaml": model_with("size: 16, act: relu", "size: 16, act: relu, param_attr: {name: " + "p" * 250 + "}")},
        ["train", "run.yaml"],
        "bytes",
    ),
    ("act-unknown", {"model.yaml": model_with("act: relu", "act: relux")}, ["train", "run.yaml"], "activation"),
    ("loss-missing", {"model.yaml": MODEL.replace("loss: loss", "loss: nothing")}, ["train", "run.yaml"], "nothing"),
    (
        "feed-shape-zero",
        {"model.yaml": model_with("shape: [1, 28, 28]", "shape: [0, 28, 28]")},
        ["train", "run.yaml"],
        "shape",
    ),
    (
        "feed-dtype-unknown",
        {"model.yaml": model_with("dtype: float32", "dtype: float31")},
        ["train", "run.yaml"],
        "float31",
    ),
    (
        "layer-arg-inf",
        {"model.yaml": model_with("size: 16, act: relu", "size: 16, act: relu, bias_attr: .inf")},
        ["train", "run.yaml"],
        "not a finite number",
    ),
    (
        "initializer-nan",
        {
            "model.yaml": model_with(
                "size: 16, act: relu", "size: 16, act: relu, param_attr: {initializer: {type: Constant, value: .nan}}"
            )
        },
        ["train", "run.yaml"],
        "not a finite number",
    ),
    ("model-list", {"model.yaml": "- a\n- b\n"}, ["train", "run.yaml"], "must be a mapping"),
    ("model-no-layers", {"model.yaml": "name: x\nfeeds: {}\n"}, ["train", "run.yaml"], ""),
]

DATA_CASES = [
    ("data-fifo", dict(csv_data("x"), **{"data.csv": FIFO}), ["train", "run.yaml"], "not a regular file"),
    (
        "data-dev-zero",
        {"run.yaml": train_source("{format: csv, path: /dev/zero}")},
        ["train", "run.yaml"],
        "not a regular file",
    ),
    (
        "data-directory",
        {"run.yaml": train_source("{format: csv, path: somedir}"), "somedir/x": "1"},
        ["train", "run.yaml"],
        "not a regular file",
    ),
    ("csv-huge-field", csv_data("x,y\n1,2\n3," + "9" * 200000 + "\n"), ["train", "run.yaml"], "field larger"),
    ("csv-latin1", csv_data(b"x,y\n1,2\n3,\xe9\xe8\n".decode("latin-1")), ["train", "run.yaml"], ""),
    (
        "csv-binary",
        {"data.csv": b"\x00\xff\xfe\x00" * 100, "run.yaml": csv_data("")["run.yaml"]},
        ["train", "run.yaml"],
        "UTF-8",
    ),
    (
        "csv-not-numbers",
        csv_data("image,label\n1,2\n3,abc\n"),
        ["train", "run.yaml"],
        "not a number",
    ),  # columns by name
    ("csv-ragged", csv_data("x,y\n1,2\n3,4,5\n"), ["train", "run.yaml"], "fields"),
    ("csv-empty", csv_data(""), ["train", "run.yaml"], "empty"),
    (
        "npy-pickle",
        {"d.npy": npy_pickle, "run.yaml": train_source("{format: npy, files: {image: d.npy}}")},
        ["train", "run.yaml"],
        "",
    ),
    (
        "npy-garbage",
        {"d.npy": b"\x93NUMPY garbage", "run.yaml": train_source("{format: npy, files: {image: d.npy}}")},
        ["train", "run.yaml"],
        "",
    ),
    (
        "npz-garbage",
        {"d.npz": b"PK\x03\x04 not a zip", "run.yaml": train_source("{format: npz, path: d.npz}")},
        ["train", "run.yaml"],
        "",
    ),
    (
        "idx-claims-1e9",
        {
            "m/t10k-images-idx3-ubyte.gz": idx_file([10**9], b"\0" * 10),
            "m/t10k-labels-idx1-ubyte.gz": idx_file([10], b"\0" * 10),
            "run.yaml": train_source("{format: mnist, path: m, split: all}"),
        },
        ["train", "run.yaml"],
        "IDX header",
    ),
    (
        "idx-claims-over-4gib",
        {
            "m/t10k-images-idx3-ubyte.gz": idx_file([60000, 28, 28, 4000], b""),
            "m/t10k-labels-idx1-ubyte.gz": idx_file([10], b"\0" * 10),
            "run.yaml": train_source("{format: mnist, path: m, split: all}"),
        },
        ["train", "run.yaml"],
        "above pe's limit",
    ),
    (
        "idx-gzip-bomb",
        {
            "m/t10k-images-idx3-ubyte.gz": idx_file([10, 28, 28], b"\0" * (300 << 20), compress=True),
            "m/t10k-labels-idx1-ubyte.gz": idx_file([10], b"\0" * 10),
            "run.yaml": train_source("{format: mnist, path: m, split: all}"),
        },
        ["train", "run.yaml"],
        "holds more",
    ),
    (
        "idx-not-idx",
        {
            "m/t10k-images-idx3-ubyte.gz": b"hello, not idx at all",
            "m/t10k-labels-idx1-ubyte.gz": idx_file([10], b"\0" * 10),
            "run.yaml": train_source("{format: mnist, path: m, split: all}"),
        },
        ["train", "run.yaml"],
        "not an IDX file",
    ),
    (
        "idx-truncated-gzip",
        {
            "m/t10k-images-idx3-ubyte.gz": b"\x1f\x8b\x08\x00trunc",
            "m/t10k-labels-idx1-ubyte.gz": idx_file([10], b"\0" * 10),
            "run.yaml": train_source("{format: mnist, path: m, split: all}"),
        },
        ["train", "run.yaml"],
        "cannot read",
    ),
    (
        "mnist-missing",
        {"run.yaml": train_source("{format: mnist, path: nowhere, split: train}")},
        ["train", "run.yaml"],
        "nowhere",
    ),
    (
        "npz-missing-array",
        {"d.npz": lambda p: np.savez(p, other=np.zeros(3)), "run.yaml": train_source("{format: npz, path: d.npz}")},
        ["train", "run.yaml"],
        "",
    ),
    (
        "npy-wrong-shape",
        {
            "img.npy": lambda p: np.save(p, np.zeros((8, 5), "float32")),
            "lab.npy": lambda p: np.save(p, np.zeros((8, 1), "int64")),
            "run.yaml": train_source("{format: npy, files: {image: img.npy, label: lab.npy}}"),
        },
        ["train", "run.yaml"],
        "",
    ),
]

CLI_CASES = [
    ("override-unknown-key", {}, ["train", "run.yaml", "optimizer.learnin_rate=1"], "learnin_rate"),
    ("override-no-equals", {}, ["train", "run.yaml", "epochs"], ""),
    ("override-syntax", {}, ["train", "run.yaml", "epochs=[1"], ""),
    ("override-nan", {}, ["train", "run.yaml", "optimizer.learning_rate=.nan"], "not a finite number"),
    ("override-long-value", {}, ["train", "run.yaml", "model=" + "x" * 50000 + ".yaml"], ""),
    ("override-alias-tag", {}, ["train", "run.yaml", "epochs=!!python/object:os.system x"], "not allowed"),
    ("max-steps-zero", {}, ["train", "run.yaml", "--max-steps", "0"], "max-steps"),
    ("max-steps-negative", {}, ["train", "run.yaml", "--max-steps", "-3"], "max-steps"),
    ("max-steps-text", {}, ["train", "run.yaml", "--max-steps", "many"], "many"),
    ("unknown-option", {}, ["train", "run.yaml", "--fast"], "--fast"),
    ("unknown-command", {}, ["trian", "run.yaml"], "trian"),
    ("resume-missing", {}, ["train", "run.yaml", "--resume", "nowhere/run"], "nowhere"),
    (
        "resume-not-a-checkpoint",
        {"notckpt/a.txt": "x"},
        ["train", "run.yaml", "--resume", "notckpt"],
        "no complete checkpoint",
    ),
    ("resume-print-config-missing", {}, ["train", "run.yaml", "--resume", "gone", "--print-config"], "no such run"),
    ("eval-missing-checkpoint", {}, ["eval", "run.yaml", "--checkpoint", "nowhere"], "nowhere"),
    ("eval-checkpoint-fifo", {"pipe": FIFO}, ["eval", "run.yaml", "--checkpoint", "pipe"], ""),
    ("graph-missing", {}, ["graph", "nope.yaml"], "no such"),
    ("graph-fifo", {"g.yaml": FIFO}, ["graph", "g.yaml"], "not a regular file"),
    ("out-is-a-file", {"afile": "x"}, ["train", "run.yaml", "--out", "afile", "--max-steps", "1"], ""),
]


def _checkpoint_case(name, damage, args=None, expect=""):
    return (
        name,
        {"__ckpt__": damage},
        args or ["train", "run.yaml", "epochs=3", "--resume", "prev", "--max-steps", "4"],
        expect,
    )


def _state(text):
    return lambda run: (run / "ckpt" / "step-2" / "trainer_state.json").write_text(text)


def _param(write):
    def damage(run):
        path = sorted((run / "ckpt" / "step-2").glob("fc1.w_0*"))[0]
        write(path)

    return damage


CHECKPOINT_CASES = [
    _checkpoint_case("state-garbage", _state("{not json"), expect="unreadable"),
    _checkpoint_case("state-negative-step", _state('{"step": -5}'), expect="'step' is -5"),
    _checkpoint_case("state-string-step", _state('{"step": "' + "9" * 5000 + '"}'), expect="'step' is"),
    _checkpoint_case("state-list", _state("[1, 2, 3]"), expect="not a trainer state"),
    _checkpoint_case("state-huge-wall", _state('{"step": 2, "wall_s": -1}'), expect="wall_s"),
    _checkpoint_case(
        "param-pickle", _param(lambda p: np.save(p, np.array([{"a": 1}], dtype=object), allow_pickle=True))
    ),
    _checkpoint_case("param-truncated", _param(lambda p: p.write_bytes(p.read_bytes()[:100]))),
    _checkpoint_case("param-wrong-shape", _param(lambda p: np.save(p, np.zeros((3, 3), "float32")))),
    _checkpoint_case("param-missing", _param(lambda p: p.unlink())),
    _checkpoint_case("param-garbage", _param(lambda p: p.write_bytes(b"\x00" * 64))),
    _checkpoint_case(
        "param-nan",
        _param(lambda p: np.save(p, np.full(np.load(p).shape, np.nan, "float32"))),
        expect="is damaged (fc1.w_0.npy: its sha256 differs from the manifest's)",
    ),
    _checkpoint_case(
        "param-nan-no-manifest",  # a checkpoint saved before manifests existed
        _param(
            lambda p: (np.save(p, np.full(np.load(p).shape, np.nan, "float32")), (p.parent / "manifest.json").unlink())
        ),
        expect="holds NaN or Inf in fc1.w_0",
    ),
    _checkpoint_case(
        "eval-state-garbage",
        _param(lambda p: p.write_bytes(b"junk")),
        args=["eval", "run.yaml", "--checkpoint", "prev"],
    ),
]

CASES = YAML_CASES + SCHEMA_CASES + MODEL_CASES + DATA_CASES + CLI_CASES + CHECKPOINT_CASES
MEMORY_CAP = 2 << 30
TIME_LIMIT = 90


def test_the_corpus_has_over_100_cases():
    assert len(CASES) >= 100 and len({c[0] for c in CASES}) == len(CASES)


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A case directory template: the config, the model, the bundled data, and an earlier run
    (``prev``, trained 2 steps) that no case may change."""
    root = tmp_path_factory.mktemp("hostile-base")
    (root / "run.yaml").write_text(RUN)
    (root / "model.yaml").write_text(MODEL)
    os.symlink(os.path.join(REPO, "data"), root / "data")
    proc = subprocess.run(
        PE + ["train", "run.yaml", "--max-steps", "2", "--out", "prev", "-q"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return root


def _make(case_dir, files):
    for rel, content in files.items():
        if rel == "__ckpt__":
            content(case_dir / "prev")
            continue
        path = case_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if content is FIFO:
            os.mkfifo(path)
        elif callable(content):
            content(str(path))
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="latin-1" if "\xe9" in content else "utf-8")


def _capped():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


@pytest.mark.parametrize("name, files, args, expect", CASES, ids=[c[0] for c in CASES])
def test_hostile_input(base, tmp_path, name, files, args, expect):
    case = tmp_path / "case"
    shutil.copytree(base, case, symlinks=True)
    _make(case, files)
    before, listing = snapshot(case / "prev"), sorted(os.listdir(case))
    outside = sorted(os.listdir(tmp_path))
    env = dict(os.environ, HOME=str(tmp_path))
    env.pop("PE_DEBUG", None)
    argv = list(args)
    if argv[0] == "train" and "--out" not in argv and "--resume" not in argv:
        argv += ["--out", "out"]
    proc = subprocess.run(
        PE + argv,
        cwd=case,
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT,
        env=env,
        preexec_fn=_capped,
        stdin=subprocess.DEVNULL,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output[-2000:]
    assert "Traceback" not in output, output[-2000:]
    lines = [
        line
        for line in proc.stderr.splitlines()
        if line.strip() and "Warning" not in line and not line.startswith("  ")
    ]
    assert 1 <= len(lines) <= 3, output[-2000:]
    assert len(proc.stderr) < 2000, proc.stderr[:500]  # never a file's contents or a huge value
    assert "root:x:0:0" not in output
    assert expect in proc.stderr, proc.stderr
    assert snapshot(case / "prev") == before, "the earlier run changed"
    assert not (case / "out").exists(), "a half-made run directory"
    # HOME is tmp_path: pe's per-user cache (~/.cache/pe, pe_cli/base/user_cache.py) may be made there
    assert sorted(set(os.listdir(tmp_path)) - {".cache"}) == outside
    assert not os.path.exists("/tmp/pe-evil.dot") and not (tmp_path / "evil.dot").exists()
    left = sorted(set(os.listdir(case)) - set(listing))
    assert left == [], f"left behind: {left}"
