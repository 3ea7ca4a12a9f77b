"""pe smoke: configs build, their loss is finite and falls; a table; non-zero exit on any failure."""

import os

from tests.cli.test_helpers import REPO, pe


def test_bundled_configs_pass():
    """What CI needs: ``pe smoke`` with its defaults over every bundled config."""
    configs = sorted(f for f in os.listdir(os.path.join(REPO, "configs")) if f.endswith(".yaml"))
    proc = pe("smoke")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["config", "model", "steps", "first", "loss", "last", "loss", "time", "status"]
    assert sum(line.rstrip().endswith(" ok") for line in lines) == len(configs) >= 4
    assert f"{len(configs)} of {len(configs)} configs passed" in proc.stdout


def test_every_config_in_configs_by_default_and_failures(tmp_path):
    (tmp_path / "configs").mkdir()
    good = open(os.path.join(REPO, "configs", "mnist_logreg.yaml")).read()
    good = good.replace("../models/", f"{REPO}/models/").replace("../data/", f"{REPO}/data/")
    (tmp_path / "configs" / "a_good.yaml").write_text(good)
    (tmp_path / "configs" / "b_still.yaml").write_text(good.replace("learning_rate: 0.1", "learning_rate: 0.0"))
    (tmp_path / "configs" / "c_broken.yaml").write_text(good.replace("epochs:", "epoch:"))
    (tmp_path / "configs" / "d_watched.yaml").write_text(
        good + "checkpoint: {keep_best: {metric: acc}}\nearly_stopping: {metric: loss, mode: min}\n"
    )
    proc = pe("smoke", "--steps", "8", "--samples", "128", cwd=tmp_path)
    assert proc.returncode == 1
    out = proc.stdout
    assert "a_good.yaml" in out and "b_still.yaml" in out and "c_broken.yaml" in out
    assert "the loss did not fall" in out
    assert "unknown key 'epoch' in the top level; did you mean 'epochs'?" in out
    assert [line.split()[-1] for line in out.splitlines() if "d_watched.yaml" in line] == ["ok"]  # data.eval kept
    assert "2 of 4 configs passed; 2 failed" in out
    assert not os.path.exists(tmp_path / "runs")  # smoke runs leave nothing behind


def test_no_configs(tmp_path):
    proc = pe("smoke", cwd=tmp_path)
    assert proc.returncode == 1 and "configs/ has no .yaml files" in proc.stderr
