"""Dates as a user writes them (issue 97 item 5), real ``pe`` processes on tables written here: a
day-first column read with ``format:`` (refused in one line suggesting it without), blank dates
counted where numbers and categories are (pe train, pe eval, pe predict, pe infer), and
``year: false``, with which a date far after the training years is predicted within the training
targets' range where the linear year part runs away. (Time zones and the parts themselves:
tests/data/test_dates.py, in-process.)"""

import csv
import datetime as dt
import json

import numpy as np

from tests.cli.test_helpers import pe

DAY_FIRST = """\
input_features: [{column: date, kind: date, preprocessing: {format: '%d/%m/%Y'}}]
output_features: [{column: y, kind: numeric}]
combiner: {layers: 0}
"""


def _table(path, days, blanks=(), fmt="%d/%m/%Y", value=lambda d: d.month):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["date", "y"])
        for i, d in enumerate(days):
            w.writerow(["" if i in blanks else d.strftime(fmt), value(d)])


def test_a_day_first_column_reads_with_format_and_every_command_counts_the_blank_dates(tmp_path):
    start = dt.date(2023, 1, 5)
    _table(tmp_path / "t.csv", [start + dt.timedelta(days=9 * i) for i in range(40)], blanks=(3, 17))
    _table(tmp_path / "e.csv", [start + dt.timedelta(days=31 * i) for i in range(10)], blanks=(4,))
    (tmp_path / "new.csv").write_text("date,id\n20/07/2023,1\n,2\n")
    (tmp_path / "m.yaml").write_text(DAY_FIRST)
    (tmp_path / "c.yaml").write_text(
        "model: m.yaml\ndata:\n  train: {format: csv, path: t.csv}\n  eval: {format: csv, path: e.csv}\n"
    )
    train = pe("train", "c.yaml", "--out", "run", "--max-steps", "2", "-q", cwd=tmp_path)
    assert train.returncode == 0, train.stderr
    fill = "2023-07-13T00:00:00"  # the median of the 38 dates, read day first (05/01/2023 is 5 January)
    assert f"pe: data.train: column 'date': 2 missing dates filled with {fill} (the training dates' median)" in (
        train.stderr.splitlines()
    ), train.stderr
    assert f"pe: data.eval: column 'date': 1 missing date filled with {fill}" in train.stderr
    ran = pe("eval", "c.yaml", "-c", "run", "-o", "e.json", cwd=tmp_path)
    assert ran.returncode == 0 and "data.eval: column 'date': 1 missing date filled with" in ran.stderr, ran.stderr
    said = f"new.csv: column 'date': 1 missing date filled with {fill}"
    predicted = pe("predict", "c.yaml", "-c", "run", "--data", "new.csv", "-o", "p.csv", "-q", cwd=tmp_path)
    assert predicted.returncode == 0 and said in predicted.stderr, predicted.stderr
    exported = pe("export", "c.yaml", "-c", "run", "--inference-dir", "inf", cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    inferred = pe("infer", "inf", "--data", "new.csv", "-o", "out.npz", cwd=tmp_path)
    assert inferred.returncode == 0 and said in inferred.stderr, inferred.stderr
    (tmp_path / "m.yaml").write_text(DAY_FIRST.replace(", preprocessing: {format: '%d/%m/%Y'}", ""))
    refused = pe("train", "c.yaml", "--out", "run2", cwd=tmp_path)
    lines = refused.stderr.strip().splitlines()
    assert refused.returncode != 0 and len(lines) == 1 and "Traceback" not in refused.stderr, refused.stderr
    assert "t.csv: column 'date': sample 0 holds '05/01/2023', not an ISO date" in lines[0]
    assert "format: '%d/%m/%Y'" in lines[0]


def test_year_false_keeps_a_far_future_prediction_within_the_training_targets(tmp_path):
    """A linear model trained on 2000..2019 whose target is the year since 2000 (0..20): with the year
    part it predicts about 100.6 for 1 July 2100 (the trend carried on); with year: false, a value
    within the training targets' range."""
    days = [dt.date(2000, 1, 1) + dt.timedelta(days=73 * i) for i in range(100)]
    _table(tmp_path / "t.csv", days, fmt="%Y-%m-%d", value=lambda d: (d - dt.date(2000, 1, 1)).days / 365.25)
    (tmp_path / "m.yaml").write_text(DAY_FIRST.replace("format: '%d/%m/%Y'", "year: false"))
    (tmp_path / "c.yaml").write_text(
        "model: m.yaml\nepochs: 30\noptimizer: {type: Adam, learning_rate: 0.05}\n"
        "checkpoint: {every_epochs: 0}\ndata:\n  train: {format: csv, path: t.csv}\n  batch_size: 10\n"
    )
    proc = pe("train", "c.yaml", "--out", "run", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "run" / "preprocessing.json").read_text())["feeds"]["date"]["year"] is False
    (tmp_path / "new.csv").write_text("date\n2100-07-01\n")
    proc = pe("predict", "c.yaml", "-c", "run", "--data", "new.csv", "-o", "p.npz", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    with np.load(tmp_path / "p.npz") as z:
        assert 0 <= float(z["value"].reshape(-1)[0]) <= 20
