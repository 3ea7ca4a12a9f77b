"""A missing config or model file is named, and the 'did you mean' offers only files of the same
kind (issue 18, item 7)."""

from tests.cli.test_helpers import pe


def test_a_missing_run_config_suggests_run_configs_only():
    proc = pe("train", "configs/mnist_lenett.yaml")
    assert proc.returncode == 2
    assert proc.stderr.strip() == "no such run config: configs/mnist_lenett.yaml; did you mean 'mnist_lenet.yaml'?"
    proc = pe("train", "models/lenett.yaml")  # models/ holds model files only
    assert proc.returncode == 2 and "lenet.yaml" not in proc.stderr.replace("lenett.yaml", "")
    assert "no such run config: models/lenett.yaml" in proc.stderr


def test_a_missing_model_file_suggests_model_files_only(tmp_path):
    (tmp_path / "run.yaml").write_text("model: modl.yaml\n")
    (tmp_path / "model.yaml").write_text("name: m\nfeeds: {}\nlayers: []\n")
    (tmp_path / "mode.yaml").write_text("model: model.yaml\n")  # a run config: never offered
    proc = pe("train", tmp_path / "run.yaml")
    assert proc.returncode == 2 and "did you mean 'model.yaml'?" in proc.stderr and "mode.yaml" not in proc.stderr
