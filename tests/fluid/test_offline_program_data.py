"""tools/offline_program_data.py: the files model-zoo programs read from their own directory, in
the formats their readers parse (checked here the way those readers parse them)."""

import importlib.util
import os

import pytest

TOOLS = os.path.join(os.path.dirname(__file__), "..", "..", "tools")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    spec = importlib.util.spec_from_file_location(
        "offline_program_data", os.path.join(TOOLS, "offline_program_data.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cwd = tmp_path_factory.mktemp("program")
    for name in ("word2vec_text8", "census_income", "ncf_ml1m"):
        module.write(name, str(cwd))
    return cwd


def _lines(path):
    with open(path) as f:
        return f.read().splitlines()


def test_census_files_hold_two_labels_and_499_features_with_the_same_columns(data):
    train, test = _lines(data / "train_data" / "train_data.csv"), _lines(data / "test_data" / "test_data.csv")
    assert train[0] == test[0] and train[0].split(",")[:2] == ["marital_stat", "income_50k"]
    rows = [[float(v) for v in line.split(",")] for line in train[1:] + test[1:]]
    assert {len(r) for r in rows} == {501}
    assert {r[0] for r in rows} == {0.0, 1.0} and {r[1] for r in rows} == {0.0, 1.0}
    assert {sum(r[13:]) for r in rows} == {29.0}  # one value of each of the 29 categorical columns


def test_ncf_files_pair_each_held_out_item_with_99_unrated_ones(data):
    rated = {}
    for line in _lines(data / "Data" / "ml-1m.train.rating"):
        user, item, _, _ = line.split("\t")
        rated.setdefault(int(user), set()).add(int(item))
    tests, negatives = _lines(data / "Data" / "ml-1m.test.rating"), _lines(data / "Data" / "ml-1m.test.negative")
    assert len(tests) == len(negatives) == len(rated)
    for test, negative in zip(tests, negatives):
        user, item = (int(v) for v in test.split("\t")[:2])
        head, *others = negative.split("\t")
        assert head == f"({user},{item})" and len(others) == 99 and not {int(o) for o in others} & rated[user]
    for line in _lines(data / "Data" / "train_data.csv"):
        user, item, label = (int(v) for v in line.split(","))
        assert (item in rated[user]) == (label == 1) and user < 6040 and item < 3706  # train.py's default sizes


def test_word2vec_ids_index_its_dictionary(data):
    counts = [int(line.split()[1]) for line in _lines(data / "data" / "test_build_dict")]
    assert counts == sorted(counts, reverse=True)
    ids = [int(w) for line in _lines(data / "data" / "convert_text8" / "convert_text8") for w in line.split()]
    assert (
        len(ids) > 5000
        and max(ids) < len(counts)
        and len(_lines(data / "data" / "test_build_dict_word_to_id_")) == len(counts)
    )
