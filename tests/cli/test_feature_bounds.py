"""What a model file's features expand into is bounded before anything is built (issue 99 item 2):
an encoder of size 0, a combiner of a million layers, of an enormous width or parameter count, and a
binary feature (input or output) holding more than two values in the data are each one line at the
feature's key, naming the value (and the variable that raises a limit), never a silent default, an
unbounded expansion or a third class. Real ``pe`` processes on generated penguins tables."""

import csv

import pytest

from tests.cli.test_features import CONFIG, PENGUINS, _penguins
from tests.cli.test_helpers import pe


def _run(tmp_path, model, third_sex=False):
    _penguins(tmp_path / "p.csv", 40)
    if third_sex:
        with open(tmp_path / "p.csv", newline="") as f:
            rows = list(csv.reader(f))
        column = rows[0].index("sex")
        rows[1][column] = "unrecorded"
        with open(tmp_path / "p.csv", "w", newline="") as f:
            csv.writer(f).writerows(rows)
    (tmp_path / "m.yaml").write_text(model)
    (tmp_path / "c.yaml").write_text(CONFIG)
    return pe("train", "c.yaml", "--out", "run", cwd=tmp_path, timeout=120)


@pytest.mark.parametrize(
    "model, says",
    [
        (
            PENGUINS.replace("{type: one_hot}", "{type: embed, size: 0}"),
            "m.yaml:3:67: input_features[1].encoder.size: encoder.size is a whole number of at least 1, not 0",
        ),
        (
            PENGUINS.replace("combiner: {size: 16}", "combiner: {size: 16, layers: 1000000}"),
            "m.yaml:6:30: combiner.layers: combiner.layers is 1,000,000, above pe's limit of 1,000 fc layers "
            "of a model file's combiner",
        ),
        (
            PENGUINS.replace("combiner: {size: 16}", "combiner: {size: 100000000}"),
            "combiner.size: combiner.size is 100,000,000, above pe's limit of 1,000,000 units",
        ),
        (
            PENGUINS.replace("combiner: {size: 16}", "combiner: {size: 500000, layers: 900}"),
            "combiner.layers: the parameter count of combiner {size: 500000, layers: 900} is "
            "224,750,449,500,000, above pe's limit of",
        ),
        (
            PENGUINS.replace("combiner: {size: 16}", "combiner: {size: 0}"),
            "combiner.size: combiner.size is the width of its fc layers: at least 1, not 0",
        ),
    ],
    ids=["encoder-size-0", "million-layers", "width", "parameters", "combiner-size-0"],
)
def test_a_feature_expansion_beyond_its_bounds_is_one_line_at_its_key(tmp_path, model, says):
    proc = _run(tmp_path, model)
    err = proc.stderr.strip()
    assert proc.returncode == 2 and len(err.splitlines()) == 1 and says in err, err
    assert "PE_MAX_" in err or "at least 1" in err
    assert not (tmp_path / "run").exists()


def test_a_binary_input_with_a_third_value_is_refused_naming_the_values(tmp_path):
    proc = _run(tmp_path, PENGUINS, third_sex=True)
    err = proc.stderr.strip()
    assert proc.returncode != 0 and len(err.splitlines()) == 1, err
    assert "m.yaml:4:5: input_features[2]: binary feature 'sex' holds 3 distinct values" in err, err
    assert "'unrecorded'" in err and "make it kind: category" in err


def test_a_binary_output_with_three_classes_is_refused(tmp_path):
    model = PENGUINS.replace(
        "output_features: [{column: species, kind: category}]", "output_features: [{column: species, kind: binary}]"
    )
    proc = _run(tmp_path, model)
    err = proc.stderr.strip()
    assert proc.returncode != 0 and len(err.splitlines()) == 1, err
    assert "output_features[0]: binary feature 'species' holds 3 distinct values" in err, err
