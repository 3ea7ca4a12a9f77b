"""The corpus of broken configs (tests/broken_configs/*.yaml): each, given to the real ``pe train``,
exits non-zero with one line naming the file, the line and the fix, prints no traceback, and
leaves an earlier run directory untouched.

Each corpus file says what to expect in its header comments:
    # expect: <text the error line contains>
    # at: <file name>:<line>      (where the error points; omitted for command-line overrides)
    # args: <extra command-line arguments>
    # exit: <status>              (default 2, a config error)
Helper model files the corpus points at live in tests/broken_configs/models/.
"""

import glob
import os
import re
import shlex

import pytest

from tests.cli.test_helpers import REPO, pe, snapshot

CORPUS = sorted(glob.glob(os.path.join(REPO, "tests", "broken_configs", "*.yaml")))


def header(path):
    fields = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"#\s*(expect|at|args|exit):\s*(.*)$", line.strip())
            if m:
                fields[m.group(1)] = m.group(2).strip()
    return fields


def test_the_corpus_is_large_enough():
    assert len(CORPUS) >= 25


@pytest.fixture(scope="module")
def earlier_run(tmp_path_factory):
    """A run directory from an earlier run, which no broken config may touch."""
    root = tmp_path_factory.mktemp("runs")
    run = root / "earlier"
    (run / "ckpt" / "step-5").mkdir(parents=True)
    (run / "metrics.csv").write_text("phase,step\ntrain,5\n")
    (run / "ckpt" / "last").write_text("step-5\n")
    (run / "ckpt" / "step-5" / "w.npy").write_bytes(b"not really")
    return run


@pytest.mark.parametrize("path", CORPUS, ids=[os.path.basename(p) for p in CORPUS])
def test_broken_config(path, earlier_run):
    fields = header(path)
    assert "expect" in fields, f"{path} needs a '# expect:' header"
    before, siblings = snapshot(earlier_run), sorted(os.listdir(earlier_run.parent))
    rel = os.path.relpath(path, REPO)
    proc = pe("train", rel, *shlex.split(fields.get("args", "")), "--out", str(earlier_run))
    output = proc.stdout + proc.stderr
    assert proc.returncode == int(fields.get("exit", 2)), output
    assert "Traceback" not in output
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, output
    line = lines[0]
    assert fields["expect"] in line, line
    if "at" in fields:
        name, lineno = fields["at"].rsplit(":", 1)
        assert re.search(rf"(^|/){re.escape(name)}:{lineno}:\d+: ", line), line
    assert ";" in line or "did you mean" in line, f"no fix suggested: {line}"
    assert snapshot(earlier_run) == before
    assert sorted(os.listdir(earlier_run.parent)) == siblings


def test_debug_shows_the_traceback():
    rel = os.path.join("tests", "broken_configs", "unknown_top_key.yaml")
    proc = pe("train", rel, "--debug")
    assert proc.returncode != 0
    assert "Traceback" in proc.stderr and "ConfigError" in proc.stderr
