"""Data sources: every format gives one array per feed, sliced alike; problems name the key to fix."""

import numpy as np
import pytest

from pe_cli.data import DataError, load_source, read_csv, read_table, write_idx
from pe_cli.data.readers import csv_delimiter


def src(**kw):
    base = {
        "format": None,
        "path": None,
        "files": {},
        "split": "all",
        "columns": {},
        "header": True,
        "delimiter": ",",
        "start": 0,
        "stop": None,
        "limit": None,
    }
    base.update(kw)
    return base


def test_mnist_split_and_columns():
    out = load_source(src(format="mnist", path="data/mnist", split="eval", limit=10), ["image", "label"])
    assert out["image"].shape == (10, 28, 28) and out["label"].shape == (10,)
    renamed = load_source(
        src(format="mnist", path="data/mnist", split="eval", limit=10, columns={"x": "image", "y": "label"}), ["x", "y"]
    )
    assert np.array_equal(renamed["x"], out["image"])
    with pytest.raises(DataError, match="feed 'pixels' has no mnist column 'pixels'") as e:
        load_source(src(format="mnist", path="data/mnist"), ["pixels"])
    assert e.value.key == ("columns",) and "map it" in e.value.hint


def test_idx_and_npy_files(tmp_path):
    x = np.arange(24, dtype=np.uint8).reshape(6, 2, 2)
    y = np.arange(6, dtype=np.uint8)
    write_idx(str(tmp_path / "x.idx.gz"), x)
    write_idx(str(tmp_path / "y.idx"), y)
    out = load_source(
        src(
            format="idx",
            files={"x": str(tmp_path / "x.idx.gz"), "y": str(tmp_path / "y.idx")},
            start=1,
            stop=5,
            limit=3,
        ),
        ["x", "y"],
    )
    assert np.array_equal(out["x"], x[1:4]) and np.array_equal(out["y"], y[1:4])
    np.save(tmp_path / "a.npy", x.astype("float32"))
    np.save(tmp_path / "b.npy", y)
    out = load_source(src(format="npy", files={"a": str(tmp_path / "a.npy"), "b": str(tmp_path / "b.npy")}), ["a", "b"])
    assert out["a"].dtype == np.float32 and len(out["b"]) == 6
    with pytest.raises(DataError, match="no file for feed 'b'") as e:
        load_source(src(format="npy", files={"a": str(tmp_path / "a.npy")}), ["a", "b"])
    assert "no file for feed 'b'" in e.value.message


def test_npz_never_unpickles(tmp_path):
    np.savez(tmp_path / "d.npz", images=np.zeros((4, 3)), labels=np.arange(4))
    out = load_source(
        src(format="npz", path=str(tmp_path / "d.npz"), columns={"x": "images", "labels": "labels"}), ["x", "labels"]
    )
    assert out["x"].shape == (4, 3)
    np.savez(tmp_path / "obj.npz", x=np.array([{"a": 1}] * 4, dtype=object))
    with pytest.raises(DataError, match="Python objects .pe never unpickles"):
        load_source(src(format="npz", path=str(tmp_path / "obj.npz")), ["x"])
    with pytest.raises(DataError, match=r"d\.npz has no array 'image' for feed 'image'") as e:
        load_source(src(format="npz", path=str(tmp_path / "d.npz")), ["image"])
    assert "has no array 'image'" in e.value.message


def test_csv_columns(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b,c,label\n1,2,3,0\n4,5,6,1\n\n7,8,9,2\n")
    names, values = read_csv(str(path))
    assert names == ["a", "b", "c", "label"] and values.shape == (3, 4)
    out = load_source(src(format="csv", path=str(path), columns={"x": ["a", 2], "label": "label"}), ["x", "label"])
    assert out["x"].tolist() == [[1, 3], [4, 6], [7, 9]] and out["label"].tolist() == [0, 1, 2]
    with pytest.raises(DataError, match=r"t\.csv has no column 'aa' for feed 'x'") as e:
        load_source(src(format="csv", path=str(path), columns={"x": ["aa"]}), ["x"])
    assert "did you mean 'a'" in e.value.hint
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n3\n")
    with pytest.raises(DataError, match="bad.csv:3: 1 fields, expected 2"):
        read_csv(str(bad))
    text = tmp_path / "text.csv"
    text.write_text("a\nx\n")
    with pytest.raises(DataError, match="not a number"):
        read_csv(str(text))
    headless = tmp_path / "h.csv"
    headless.write_text("1;2\n3;4\n")
    out = load_source(src(format="csv", path=str(headless), header=False, delimiter=";", columns={"v": [0, 1]}), ["v"])
    assert out["v"].tolist() == [[1, 2], [3, 4]]


def test_the_delimiter_sniffer_keeps_commas_unless_the_first_line_splits_on_another(tmp_path):
    assert csv_delimiter("review\ngreat; loved it\nbad; late\n") == ","
    assert csv_delimiter("a;b\n1,5;2\n3;4\n") == ";"
    assert csv_delimiter("a\tb\n1\t2\n") == "\t"
    assert csv_delimiter("") == ","
    european = tmp_path / "e.csv"
    european.write_text("a;b\n1,5;2\n")
    with pytest.raises(DataError, match="not a number") as e:
        read_table(str(european), "csv").numbers(["a"])
    assert "decimal comma" in e.value.hint


def test_mismatched_lengths_and_empty_slices(tmp_path):
    np.savez(tmp_path / "d.npz", x=np.zeros((4, 3)), y=np.zeros(5))
    with pytest.raises(DataError, match="different numbers of samples"):
        load_source(src(format="npz", path=str(tmp_path / "d.npz")), ["x", "y"])
    np.savez(tmp_path / "e.npz", x=np.zeros((4, 3)))
    with pytest.raises(DataError, match="leaves no samples"):
        load_source(src(format="npz", path=str(tmp_path / "e.npz"), start=4), ["x"])


def test_missing_files_name_the_key(tmp_path):
    with pytest.raises(DataError, match=r"data file .*nope\.npz does not exist") as e:
        load_source(src(format="npz", path=str(tmp_path / "nope.npz")), ["x"])
    assert e.value.key == ("path",) and "does not exist" in e.value.message
    with pytest.raises(DataError, match=r"data file .*nope\.idx does not exist") as e:
        load_source(src(format="idx", files={"x": str(tmp_path / "nope.idx")}), ["x"])
    assert e.value.key == ("files", "x")
