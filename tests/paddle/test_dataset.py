"""paddle.dataset readers (pe_cli/paddle/dataset/): the files and formats Paddle uses, read from
Paddle's cache folder; nothing downloads, and a missing or malformed file is one clear error."""

import numpy as np
import pytest

from pe_cli.base.errors import PeError
from pe_cli.paddle.dataset import uci_housing


@pytest.fixture
def data_home(tmp_path, monkeypatch):
    monkeypatch.setenv("PADDLE_DATA_HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)  # uci_housing draws ./image/ranges.png, as Paddle's loader
    uci_housing._loaded.clear()
    yield tmp_path
    uci_housing._loaded.clear()


def test_uci_housing_normalizes_each_feature_and_splits_80_20(data_home):
    rng = np.random.default_rng(1)
    rows = rng.uniform(1, 9, size=(10, 14))
    (data_home / "uci_housing").mkdir()
    np.savetxt(data_home / "uci_housing" / "housing.data", rows, fmt="%.6f")
    rows = np.loadtxt(data_home / "uci_housing" / "housing.data")
    train = list(uci_housing.train()())
    test = list(uci_housing.test()())
    assert len(train) == 8 and len(test) == 2
    features = (rows[:, :13] - rows[:, :13].mean(axis=0)) / (rows[:, :13].max(axis=0) - rows[:, :13].min(axis=0))
    np.testing.assert_allclose(np.array([f for f, _ in train + test]), features, rtol=1e-12)
    np.testing.assert_array_equal(np.array([p for _, p in train + test]), rows[:, 13:])
    np.testing.assert_allclose(uci_housing.predict_reader()[0], features[8])


def test_uci_housing_draws_the_feature_ranges_into_image_as_paddle(data_home):
    """Paddle's train()/test() load the file when called and draw ./image/ranges.png: programs then
    save their own charts into ./image (cournnnnnn/train_test_daily's line_regression.py)."""
    (data_home / "uci_housing").mkdir()
    np.savetxt(data_home / "uci_housing" / "housing.data", np.arange(28.0).reshape(2, 14))
    uci_housing.test()
    assert (data_home / "image").is_dir()
    assert (data_home / "image" / "ranges.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_uci_housing_without_its_file_names_it(data_home):
    with pytest.raises(PeError, match=r"uci_housing/housing.data is absent \(pe downloads nothing\)"):
        next(uci_housing.train()())


def test_uci_housing_refuses_a_file_of_another_shape(data_home):
    (data_home / "uci_housing").mkdir()
    (data_home / "uci_housing" / "housing.data").write_text("1 2 3\n")
    with pytest.raises(PeError, match="holds 3 numbers, not a multiple of 14"):
        next(uci_housing.test()())


def _ptb(data_home, train_text, valid_text, name="simple-examples.tgz"):
    import io
    import tarfile

    (data_home / "imikolov").mkdir()
    with tarfile.open(data_home / "imikolov" / name, "w:gz") as tf:
        for name, text in (
            ("./simple-examples/data/ptb.train.txt", train_text),
            ("./simple-examples/data/ptb.valid.txt", valid_text),
        ):
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            tf.addfile(info, io.BytesIO(text.encode()))


def test_imikolov_dictionary_and_ngrams_follow_paddles_reader(data_home):
    from pe_cli.paddle.dataset import imikolov

    _ptb(data_home, "a b a\nb a <unk> c\n", "a\n")
    word_idx = imikolov.build_dict(min_word_freq=1)
    # counts: a 4, <s> 3, <e> 3, b 2, c 1 (dropped: not > 1), <unk> removed and put last
    assert word_idx == {"a": 0, "<e>": 1, "<s>": 2, "b": 3, "<unk>": 4}
    grams = list(imikolov.train(word_idx, 3)())
    assert grams[:3] == [(2, 0, 3), (0, 3, 0), (3, 0, 1)]
    assert (0, 4, 4) in grams  # 'c' is unknown
    seqs = list(imikolov.test(word_idx, 0, imikolov.DataType.SEQ)())
    assert seqs == [([2, 0], [0, 1])]


def test_imikolov_reads_the_archive_under_the_name_fluids_download_gives_it(data_home):
    from pe_cli.paddle.dataset import imikolov

    _ptb(data_home, "a b a\n", "a\n", name="imikolov%2Fsimple-examples.tgz")  # Fluid 1.8's mirror URL's name
    assert imikolov.build_dict(min_word_freq=0)["a"] == 0


def test_imikolov_without_its_archive_names_it(data_home):
    from pe_cli.paddle.dataset import imikolov

    with pytest.raises(PeError, match=r"imikolov/simple-examples.tgz is absent"):
        imikolov.build_dict()


def test_movielens_samples_follow_paddles_layout(data_home):
    import zipfile
    from pe_cli.paddle.dataset import movielens

    (data_home / "movielens").mkdir()
    with zipfile.ZipFile(data_home / "movielens" / "ml-1m.zip", "w") as z:
        z.writestr("ml-1m/movies.dat", "1::Toy Story (1995)::Animation|Comedy\n2::Heat (1995)::Action\n")
        z.writestr("ml-1m/users.dat", "1::F::1::10::48067\n2::M::56::16::70072\n")
        z.writestr("ml-1m/ratings.dat", "".join(f"{1 + i % 2}::{1 + i % 2}::{1 + i % 5}::0\n" for i in range(40)))
    movielens._meta.clear()
    assert movielens.movie_categories() == {"Action": 0, "Animation": 1, "Comedy": 2}
    assert movielens.get_movie_title_dict() == {"heat": 0, "story": 1, "toy": 2}
    assert (movielens.max_user_id(), movielens.max_movie_id(), movielens.max_job_id()) == (2, 2, 16)
    train, test = list(movielens.train()()), list(movielens.test()())
    assert len(train) + len(test) == 40 and 0 < len(test) < 10  # test_ratio 0.1
    assert train == list(movielens.train()())  # the same split every time
    assert [1, 1, 0, 10, 1, [1, 2], [2, 1], [-3.0]] in train + test  # user 1, Toy Story, rating 1
    assert [2, 0, 6, 16, 2, [0], [0], [-1.0]] in train + test  # user 2, Heat, rating 2
    assert str(movielens.movie_info()[1]) == "<MovieInfo id(1), title(Toy Story), categories(['Animation', 'Comedy'])>"
    assert movielens.movie_info()[2].value() == [2, [0], [0]]
    assert str(movielens.user_info()[2]) == "<UserInfo id(2), gender(M), age(56), job(16)>"
    assert movielens.user_info()[1].value() == [1, 1, 0, 10]
    assert len(list(movielens.test(test_ratio=0.5)())) > len(test)


def test_movielens_without_its_archive_names_it(data_home):
    from pe_cli.paddle.dataset import movielens

    movielens._meta.clear()
    with pytest.raises(PeError, match=r"movielens/ml-1m.zip is absent"):
        movielens.max_user_id()
