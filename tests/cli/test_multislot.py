"""`data.format: multislot` (issue 14, item 5): `pe train` on MultiSlot text, the slots being the
model's feeds in order (a lod_level 1 feed is a sparse slot), through the real `pe`."""

import json

from tests.cli.test_helpers import pe

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


def test_async_mode_trains_on_threads_and_matches_sync_with_one_thread(tmp_path):
    args = ["data.train.limit=1000", "epochs=2", "output.curves=false", "fetch.every=10"]
    sync = pe("train", "configs/ctr.yaml", *args, "--out", tmp_path / "sync", "-q")
    one = pe(
        "train",
        "configs/ctr.yaml",
        *args,
        "exec_strategy.mode=async",
        "exec_strategy.thread_num=1",
        "--out",
        tmp_path / "one",
        "-q",
    )
    two = pe(
        "train",
        "configs/ctr.yaml",
        *args,
        "exec_strategy.mode=async",
        "exec_strategy.thread_num=2",
        "--out",
        tmp_path / "two",
        "-q",
    )
    for proc in (sync, one, two):
        assert proc.returncode == 0, proc.stderr
    import numpy as np

    def ckpt(run, step):
        return {
            f: np.load(run / "ckpt" / f"step-{step}" / f)
            for f in sorted(p.name for p in (run / "ckpt" / f"step-{step}").glob("*.npy"))
        }

    a, b = ckpt(tmp_path / "sync", 64), ckpt(tmp_path / "one", 64)
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)  # 1 thread = sequential
    rows = [json.loads(line) for line in open(tmp_path / "two" / "metrics.jsonl")]
    train = [r for r in rows if r["phase"] == "train"]
    assert [r["step"] for r in train] == [32, 64] and train[1]["loss"] < train[0]["loss"]  # a row per epoch


def test_async_mode_refuses_what_it_cannot_do(tmp_path):
    proc = pe(
        "train", "configs/ctr.yaml", "exec_strategy.mode=async", "checkpoint.every_steps=10", "--out", tmp_path / "run"
    )
    assert proc.returncode == 2 and "checkpoint.every_steps" in proc.stderr and "every_epochs" in proc.stderr
    proc = pe("train", "configs/ctr.yaml", "exec_strategy.mode=async", "devices=2", "--out", tmp_path / "run")
    assert proc.returncode == 2 and "one CPU device" in proc.stderr
