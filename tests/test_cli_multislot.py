"""`data.format: multislot` (issue 14, item 5): `pe train` on MultiSlot text, the slots being the
model's feeds in order (a lod_level 1 feed is a sparse slot), through the real `pe`."""
import json

from test_cli_helpers import pe

SMALL = ["data.train.limit=2000", "epochs=2", "fetch.every=20", "output.curves=false"]


def test_pe_train_reads_multislot_files(tmp_path):
    proc = pe("train", "configs/ctr.yaml", *SMALL, "--out", tmp_path / "run", "-q")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in open(tmp_path / "run" / "metrics.jsonl")]
    train = [r["loss"] for r in rows if r["phase"] == "train"]
    assert len(train) >= 5 and sum(train[-2:]) < sum(train[:2])
    report = json.loads((tmp_path / "run" / "eval.json").read_text())
    assert report["samples"] == 2000 and report["prediction"]["kind"] == "classification"


def test_a_malformed_multislot_line_names_the_config_key_and_the_line(tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "part-0").write_text("2 5 6 2 1 0.5 1 0\n3 7 8\n")
    proc = pe("train", "configs/ctr.yaml", f"data.train.path={bad}", "--out", tmp_path / "run")
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert "\n" not in line and "data.train" in line
    assert f"{bad}/part-0:2: slot 'ids': fewer values than its count" in line
    assert not (tmp_path / "run").exists()
