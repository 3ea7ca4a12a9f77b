"""CSV files as spreadsheets write them (issue 77): a UTF-8 byte order mark, `;` or tab between
fields, a header and no rows, two columns of one name, `inf` in a numeric column, through real `pe`
processes on generated files of a few rows (a linear regression trained 2 steps)."""

import csv

import pytest

from tests.cli.test_helpers import line_model, pe

MODEL = line_model(2)

CONFIG = """\
model: line.yaml
epochs: 1
data:
  train: {format: csv, path: t.csv, columns: {x: [weight, price], y: cost}}
  batch_size: 4
  preprocessing:
    x: {kind: numeric}
optimizer: {type: SGD, learning_rate: 0.01}
output: {curves: false}
"""

HEADER = ["weight", "price", "cost"]
ROWS = [[1 + i, 10 + i, 3 + i] for i in range(8)]


def _write(path, header=HEADER, rows=ROWS, delimiter=",", encoding="utf-8"):
    with open(path, "w", newline="", encoding=encoding) as f:
        csv.writer(f, delimiter=delimiter).writerows([header] + rows)


def _train(root, **csv_kw):
    (root / "line.yaml").write_text(MODEL)
    (root / "run.yaml").write_text(CONFIG)
    _write(root / "t.csv", **csv_kw)
    return pe("train", root / "run.yaml", "--out", root / "run", "-q", cwd=root)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    root = tmp_path_factory.mktemp("csv_dialects")
    proc = _train(root)
    assert proc.returncode == 0, proc.stderr
    return root


def test_a_byte_order_mark_keeps_the_first_column_name(tmp_path):
    proc = _train(tmp_path, encoding="utf-8-sig")  # Excel's "CSV UTF-8"
    assert proc.returncode == 0, proc.stderr


def test_a_semicolon_file_is_read_with_its_delimiter(tmp_path):
    proc = _train(tmp_path, delimiter=";")
    assert proc.returncode == 0, proc.stderr


def test_a_delimiter_that_does_not_split_the_header_names_the_one_that_does(tmp_path):
    (tmp_path / "line.yaml").write_text(MODEL)
    (tmp_path / "run.yaml").write_text(CONFIG.replace("y: cost}", "y: cost}, delimiter: ';'"))
    _write(tmp_path / "t.csv")
    proc = pe("train", tmp_path / "run.yaml", "--out", tmp_path / "run", "-q", cwd=tmp_path)
    assert proc.returncode == 2 and "delimiter: ','" in proc.stderr and "Traceback" not in proc.stderr


def test_a_header_without_rows_is_one_line_naming_the_file(trained):
    _write(trained / "header_only.csv", header=["weight", "price"], rows=[])
    proc = pe("predict", "run.yaml", "--checkpoint", "run", "--data", "header_only.csv", "-o", "p.csv", cwd=trained)
    assert proc.returncode != 0 and "internal error" not in proc.stderr
    assert proc.stderr.strip().count("\n") == 0 and "header_only.csv: a header and no rows" in proc.stderr


def test_two_columns_of_one_name_are_refused_naming_both(tmp_path):
    proc = _train(tmp_path, header=HEADER + ["price"], rows=[r + [99] for r in ROWS])
    assert proc.returncode == 2 and "2 columns are named 'price' (columns 2 and 4" in proc.stderr


@pytest.mark.parametrize("field", ["inf", "1e999"])
def test_an_infinite_number_is_refused_naming_row_and_column(trained, field):
    rows = [r[:2] for r in ROWS]
    rows[2][1] = field
    _write(trained / "new.csv", header=["weight", "price"], rows=rows)
    proc = pe("predict", "run.yaml", "--checkpoint", "run", "--data", "new.csv", "-o", "p.csv", cwd=trained)
    assert proc.returncode != 0
    assert f"new.csv:4: the field '{field}' of column 'price' is not a finite number" in proc.stderr
