"""paddle.dataset's readers of issue 52 (cifar, imdb, mnist, conll05, wmt14, wmt16, sentiment,
flowers) read tiny files written here in the real formats (Python 2 pickles, IDX, tar.gz, MAT v5,
NLTK's corpus folders) under a temporary HOME, through Paddle 1.8's reader functions; a missing file
is one line naming it, its folder and where Paddle downloads it. Formats: the dataset's own pages
and Paddle's python/paddle/dataset/*.py."""

import gzip
import io
import os
import pickle
import re
import struct
import tarfile
import zlib

import numpy as np
import pytest

from pe_cli.base.errors import PeError
from pe_cli.base.limits import LimitError
from pe_cli.data.idx import write_idx
from pe_cli.paddle.dataset import cifar, conll05, flowers, imdb, mnist, sentiment, wmt14, wmt16


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("PADDLE_DATA_HOME", raising=False)
    return tmp_path / ".cache" / "paddle" / "dataset"


def write_tar(path, members):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with tarfile.open(path, "w:gz") as tf:
        for name, data in members.items():
            data = data.encode() if isinstance(data, str) else data
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))


def py2_batch(images, labels):
    """A CIFAR batch as Python 2's cPickle (protocol 2) wrote them: py2 str keys, a uint8 array."""

    def text(s):
        return b"U" + bytes([len(s)]) + s

    out = (
        b"\x80\x02}q\x00(" + text(b"data") + b"q\x01cnumpy.core.multiarray\n_reconstruct\nq\x02cnumpy\nndarray\n"
        b"q\x03K\x00\x85U\x01b\x87Rq\x04(K\x01J"
        + struct.pack("<i", images.shape[0])
        + b"M"
        + struct.pack("<H", images.shape[1])
        + b"\x86cnumpy\ndtype\nq\x05U\x02u1K\x00K\x01\x87Rq\x06(K\x03U\x01|NNN"
        b"J\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb\x89T" + struct.pack("<i", images.size) + images.tobytes() + b"tb"
    )
    out += text(b"labels") + b"]q\x07(" + b"".join(b"K" + bytes([v]) for v in labels) + b"e"
    out += text(b"batch_label") + text(b"training batch 1 of 5") + b"u."
    return out


def test_cifar10_reads_python2_pickled_batches_without_unpickling(home):
    rng = np.random.default_rng(0)
    first, second = rng.integers(0, 256, (3, 3072), dtype=np.uint8), rng.integers(0, 256, (2, 3072), dtype=np.uint8)
    write_tar(
        str(home / "cifar" / "cifar-10-python.tar.gz"),
        {
            "cifar-10-batches-py/data_batch_1": py2_batch(first, [3, 9, 0]),
            "cifar-10-batches-py/data_batch_2": py2_batch(second, [1, 2]),
            "cifar-10-batches-py/test_batch": py2_batch(second[:1], [7]),
            "cifar-10-batches-py/batches.meta": b"not read",
        },
    )
    train = list(cifar.train10()())
    assert [label for _, label in train] == [3, 9, 0, 1, 2]
    assert train[0][0].dtype == np.float32 and train[0][0].shape == (3072,)
    np.testing.assert_allclose(train[4][0], second[1] / 255.0, rtol=1e-6)
    assert [label for _, label in cifar.test10()()] == [7]
    cycled = cifar.test10(cycle=True)()
    assert [next(cycled)[1] for _ in range(3)] == [7, 7, 7]


def test_cifar100_fine_labels_and_a_hostile_pickle(home):
    images = np.arange(2 * 3072, dtype=np.uint8).reshape(2, 3072)
    batch = {"data": images, "fine_labels": [41, 99], "coarse_labels": [1, 2], "filenames": ["a.png", "b.png"]}
    write_tar(
        str(home / "cifar" / "cifar-100-python.tar.gz"),
        {
            "cifar-100-python/train": pickle.dumps(batch, protocol=2),
            "cifar-100-python/test": b"\x80\x02cos\nsystem\nq\x00X\x02\x00\x00\x00lsq\x01\x85q\x02Rq\x03.",
        },
    )
    assert [label for _, label in cifar.train100()()] == [41, 99]
    with pytest.raises(
        PeError, match=r"member cifar-100-python/test is not a CIFAR batch of plain data: .*'os\.system'"
    ):
        list(cifar.test100()())


def test_a_cifar_member_is_checked_by_its_declared_size_before_it_is_read(home, monkeypatch):
    """A small gzip can hold a batch of gigabytes (zeros): it was read whole (3.1 GiB RSS). Its tar
    header's size is checked against pe's data limit first; a header claiming more than follows is a
    damaged archive, one line too (tarfile's ReadError before)."""
    path = str(home / "cifar" / "cifar-10-python.tar.gz")
    write_tar(path, {"cifar-10-batches-py/data_batch_1": b"\0" * 5000})
    monkeypatch.setenv("PE_MAX_DATA_BYTES", "4096")
    with pytest.raises(
        LimitError,
        match=r"member cifar-10-batches-py/data_batch_1, of 5,000 bytes by its header, "
        r"needs 4.9 KiB of memory, above pe's limit of 4.0 KiB",
    ):
        next(cifar.train10()())
    monkeypatch.delenv("PE_MAX_DATA_BYTES")
    raw = bytearray(gzip.decompress(open(path, "rb").read()))
    for size, message in [
        (3 << 30, "its 3,221,225,472 bytes over the archive's"),  # refused at its header
        (10_000, "cifar-10-python.tar.gz is a damaged tar archive .unexpected end of data"),
    ]:
        info = tarfile.TarInfo("cifar-10-batches-py/data_batch_1")
        info.size = size  # the header lies: 5,000 bytes follow
        raw[:512] = info.tobuf(format=tarfile.GNU_FORMAT)[:512]
        with open(path, "wb") as f:
            f.write(gzip.compress(bytes(raw)))
        with pytest.raises(PeError, match=message):
            next(cifar.train10()())


class _Zeros(io.RawIOBase):
    def __init__(self, n):
        self.left = n

    def readinto(self, buf):
        n = min(len(buf), self.left)
        buf[:n] = bytes(n)
        self.left -= n
        return n


def test_a_member_unpacking_to_more_than_100_times_its_archive_is_refused_unread(home):
    """80 MiB of zeros in a 80 KB archive: within the memory limit of any machine pe runs on, but a bomb
    (the corpus's 14 MB archive declared 3 GiB and was read whole on a machine with more)."""
    path = home / "cifar" / "cifar-10-python.tar.gz"
    os.makedirs(path.parent)
    with tarfile.open(path, "w:gz") as tf:
        info = tarfile.TarInfo("cifar-10-batches-py/data_batch_1")
        info.size = 80 << 20
        tf.addfile(info, _Zeros(info.size))
    with pytest.raises(
        LimitError,
        match=r"member cifar-10-batches-py/data_batch_1: its 83,886,080 bytes over the "
        r"archive's [\d,]+ is [\d,]+, above pe's limit of 100 times",
    ):
        next(cifar.train10()())


def test_mnist_reads_paddles_idx_files_scaled_to_minus_one_one(home):
    images = np.array([np.full((28, 28), 0), np.full((28, 28), 255)], np.uint8)
    (home / "mnist").mkdir(parents=True)
    write_idx(str(home / "mnist" / "train-images-idx3-ubyte.gz"), images)
    write_idx(str(home / "mnist" / "train-labels-idx1-ubyte.gz"), np.array([4, 2], np.uint8))
    samples = list(mnist.train()())
    assert [label for _, label in samples] == [4, 2]
    assert samples[0][0].shape == (784,) and samples[0][0].max() == -1.0 and samples[1][0].min() == 1.0


def test_imdb_tokenizes_and_labels_as_paddle(home):
    write_tar(
        str(home / "imdb" / "aclImdb_v1.tar.gz"),
        {
            "aclImdb/train/pos/0_9.txt": "Good, GOOD film!\n" + "fine " * 151,
            "aclImdb/train/neg/1_2.txt": "Bad film.\r\n",
            "aclImdb/test/pos/2_8.txt": "good",
            "aclImdb/test/neg/3_1.txt": "dull",
            "aclImdb/README": "not a review",
        },
    )
    assert imdb.word_dict() == {b"fine": 0, "<unk>": 1}
    word_idx = imdb.build_dict(re.compile(r"aclImdb/train/.*\.txt$"), 0)
    assert word_idx == {b"fine": 0, b"film": 1, b"good": 2, b"bad": 3, "<unk>": 4}  # ties by spelling
    train = list(imdb.train(word_idx)())
    assert train[0] == ([2, 2, 1] + [0] * 151, 0) and train[1] == ([3, 1], 1)
    assert list(imdb.test(word_idx)()) == [([2], 0), ([4], 1)]


def _conll(home):
    words = "The\ncat\nsat\n.\n\nDogs\nbark\n\n"
    props = "-\t(A0*\n-\t*)\nsit\t(V*)\n-\t*\n\n-\t(A0*)\nbark\t(V*)\n\n"
    folder = home / "conll05st"
    write_tar(
        str(folder / "conll05st-tests.tar.gz"),
        {conll05.WORDS: gzip.compress(words.encode()), conll05.PROPS: gzip.compress(props.encode())},
    )
    (folder / "conll05st%2FwordDict.txt").write_text("<unk>\nThe\ncat\nsat\n.\nbos\neos\nDogs\nbark\n")
    (folder / "conll05st%2FverbDict.txt").write_text("sit\nbark\n")
    (folder / "conll05st%2FtargetDict.txt").write_text("B-V\nI-V\nB-A0\nI-A0\nO\n")
    (folder / "conll05st%2Femb").write_bytes(b"\0" * 8)


def test_conll05_gives_the_nine_fields_of_each_predicate(home):
    _conll(home)
    word_dict, verb_dict, label_dict = conll05.get_dict()
    assert label_dict == {"B-A0": 0, "I-A0": 1, "B-V": 2, "I-V": 3, "O": 4} and verb_dict == {"sit": 0, "bark": 1}
    first, second = list(conll05.test()())
    assert first == ([1, 2, 3, 4], [1] * 4, [2] * 4, [3] * 4, [4] * 4, [6] * 4, [0] * 4, [1, 1, 1, 1], [0, 1, 2, 4])
    assert second == ([7, 8], [5] * 2, [7] * 2, [8] * 2, [6] * 2, [6] * 2, [1] * 2, [1, 1], [0, 2])
    assert conll05.get_embedding().endswith("conll05st%2Femb")


def test_wmt14_reads_its_dictionaries_and_skips_long_pairs(home):
    write_tar(
        str(home / "wmt14" / "wmt14.tgz"),
        {
            "wmt14/src.dict": "<s>\n<e>\n<unk>\nle\nchat\n",
            "wmt14/trg.dict": "<s>\n<e>\n<unk>\nthe\ncat\n",
            "wmt14/train/train": "le chat\tthe cat\nle chien\tthe dog\nbroken line\n" + "le " * 80 + "\tthe\n",
            "wmt14/test/test": "chat\tcat\n",
        },
    )
    assert list(wmt14.train(5)()) == [([0, 3, 4, 1], [0, 3, 4], [3, 4, 1]), ([0, 3, 2, 1], [0, 3, 2], [3, 2, 1])]
    assert list(wmt14.test(4)()) == [([0, 2, 1], [0, 2], [2, 1])]  # dict_size 4: 'chat'/'cat' unknown
    assert wmt14.get_dict(5) == (
        {0: "<s>", 1: "<e>", 2: "<unk>", 3: "le", 4: "chat"},
        {0: "<s>", 1: "<e>", 2: "<unk>", 3: "the", 4: "cat"},
    )


def test_wmt16_builds_its_dictionaries_from_the_training_set(home):
    write_tar(
        str(home / "wmt16" / "wmt16.tar.gz"),
        {
            "wmt16/train": "a dog runs\tein Hund rennt\na dog\tein Hund\nthe cat\tdie Katze\n",
            "wmt16/val": "a cat\teine Katze\n",
            "wmt16/test": "dog\tHund\n",
        },
    )
    assert wmt16.get_dict("en", 5) == {"<s>": 0, "<e>": 1, "<unk>": 2, "a": 3, "dog": 4}
    assert list(wmt16.validation(5, 6)()) == [([0, 3, 2, 1], [0, 2, 2], [2, 2, 1])]  # de: ein Hund rennt
    assert list(wmt16.test(5, 5, src_lang="de")()) == [([0, 4, 1], [0, 4], [4, 1])]
    with pytest.raises(ValueError, match="Only support: en"):
        wmt16.train(5, 5, src_lang="fr")


def test_sentiment_reads_nltks_movie_reviews_folders(home):
    corpus = home / "corpora" / "movie_reviews"
    for category, texts in (("neg", ["bad , bad film", "dull"]), ("pos", ["good film !", "fine"])):
        (corpus / category).mkdir(parents=True)
        for i, text in enumerate(texts):
            (corpus / category / f"cv00{i}_1.txt").write_text(text + "\n")
    words = dict(sentiment.get_word_dict())
    assert words["bad"] == 0 and words["film"] == 1 and len(words) == 7
    samples = list(sentiment.train())
    assert [label for _, label in samples] == [0, 1, 0, 1]
    assert samples[0][0] == [words["bad"], words[","], words["bad"], words["film"]]


def mat_v5(variables, compress):
    """A MATLAB level-5 file of double-class row vectors stored as uint16 (as MATLAB saves them)."""

    def element(kind, data):
        if len(data) <= 4:
            return struct.pack("<HH", kind, len(data)) + data.ljust(4, b"\0")
        return struct.pack("<II", kind, len(data)) + data + b"\0" * (-len(data) % 8)

    out = b"MATLAB 5.0 MAT-file, written by a test".ljust(116) + b"\0" * 8 + struct.pack("<H", 0x0100) + b"IM"
    for name, values in variables.items():
        body = (
            element(6, struct.pack("<II", 6, 0))
            + element(5, struct.pack("<ii", 1, len(values)))
            + element(1, name.encode())
            + element(4, np.asarray(values, "<u2").tobytes())
        )
        matrix = struct.pack("<II", 14, len(body)) + body
        out += struct.pack("<II", 15, len(zlib.compress(matrix))) + zlib.compress(matrix) if compress else matrix
    return out


def test_flowers_reads_jpegs_and_mat_files(home):
    from PIL import Image

    folder = home / "flowers"
    colors = {1: (10, 20, 30), 2: (200, 100, 50), 3: (0, 255, 0)}
    members = {}
    for i, rgb in colors.items():
        buf = io.BytesIO()
        Image.new("RGB", (12, 8), rgb).save(buf, "PNG")
        members["jpg/image_%05d.jpg" % i] = buf.getvalue()
    write_tar(str(folder / "102flowers.tgz"), members)
    (folder / "imagelabels.mat").write_bytes(mat_v5({"labels": [5, 102, 1]}, compress=True))
    (folder / "setid.mat").write_bytes(mat_v5({"trnid": [2], "valid": [3], "tstid": [1, 3]}, compress=False))
    test = list(flowers.test(use_xmap=False)())
    assert [label for _, label in test] == [101]
    image = test[0][0].reshape(3, 224, 224)
    np.testing.assert_allclose(image[:, 100, 100], np.array([50, 100, 200]) - np.array(flowers.MEAN_BGR), atol=1)
    train = sorted(flowers.train(buffered_size=4)(), key=lambda s: s[1])
    assert [label for _, label in train] == [0, 4] and train[0][0].shape == (3 * 224 * 224,)
    assert [label for _, label in flowers.valid(use_xmap=False)()] == [0]
    (folder / "setid.mat").write_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 600)
    with pytest.raises(PeError, match=r"setid.mat is a MATLAB 7.3 \(HDF5\) file"):
        flowers.train()


@pytest.mark.parametrize(
    "call, path",
    [
        (lambda: cifar.train10(), "cifar/cifar-10-python.tar.gz"),
        (lambda: cifar.test100(), "cifar/cifar-100-python.tar.gz"),
        (lambda: imdb.word_dict(), "imdb/aclImdb_v1.tar.gz"),
        (lambda: conll05.test(), "conll05st/conll05st%2FwordDict.txt"),
        (lambda: wmt14.train(10), "wmt14/wmt14.tgz"),
        (lambda: wmt16.train(10, 10), "wmt16/wmt16.tar.gz"),
        (lambda: flowers.train(), "flowers/102flowers.tgz"),
        (lambda: sentiment.train(), "corpora/movie_reviews"),
    ],
)
def test_a_missing_file_is_one_line_naming_it_and_where_paddle_gets_it(home, call, path):
    with pytest.raises(PeError, match=re.escape(str(home / path)) + r".* is absent \(pe downloads nothing\)") as caught:
        call()
    message = str(caught.value)
    assert "\n" not in message and str(home / path) in message and "pe downloads nothing" in message
    assert re.search(r"Paddle downloads (it|them) (from|with) \S", message)


def test_a_fluid_script_reads_cifar_through_paddles_names(home, tmp_path):
    """The book's pipeline, as written for Fluid, under ``pe fluid``: the dataset's modules found by
    Paddle's names (wmt16, conll05 and wmt14 live under other names in pe), decorators from both faces."""
    import subprocess
    import sys

    images = np.arange(4 * 3072, dtype=np.uint8).reshape(4, 3072)
    write_tar(
        str(home / "cifar" / "cifar-10-python.tar.gz"),
        {"cifar-10-batches-py/data_batch_1": py2_batch(images, [0, 1, 2, 3])},
    )
    script = tmp_path / "book.py"
    script.write_text(
        "import paddle\nimport paddle.fluid as fluid\nimport paddle.dataset.wmt16\n"
        "import paddle.dataset.conll05 as c\nfrom paddle.dataset import wmt14\n"
        "reader = paddle.batch(fluid.io.shuffle(paddle.reader.buffered(paddle.dataset.cifar.train10(), 2), 4), 3)\n"
        "print(sorted(int(label) for batch in reader() for _, label in batch), [len(b) for b in reader()])\n"
        "print(paddle.dataset.wmt16.train.__module__, c.test.__module__, wmt14.gen.__module__)\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root, HOME=str(home.parent.parent.parent))
    env.pop("PADDLE_DATA_HOME", None)
    out = subprocess.run(
        [sys.executable, "-m", "pe_cli", "fluid", str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "[0, 1, 2, 3] [3, 1]",
        "pe_cli.paddle.dataset.wmt_multi30k pe_cli.paddle.dataset.conll_srl pe_cli.paddle.dataset.wmt_fr_en",
    ]


def _offline_datasets():
    """tools/make_offline_datasets.py, the upstream runner's generator of Paddle's cache files."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "offline", os.path.join(os.path.dirname(__file__), "..", "..", "tools", "make_offline_datasets.py")
    )
    offline = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(offline)
    return offline


def test_the_offline_imikolov_dictionary_holds_the_word_ids_book_word2vec_infers_for(home):
    """Book 04.word2vec infers for word ids up to 211 of the real PTB dictionary: the offline one
    keeps 250 rare words (each above build_dict's threshold of 50), and three frequent words make
    most of each line, so the n-gram labels are learnable (Paddle's test_word2vec wants cost < 5.0)."""
    from pe_cli.paddle.dataset import imikolov

    os.makedirs(home / "imikolov")
    _offline_datasets().imikolov(str(home / "imikolov"), np.random.default_rng(0))
    word_idx = imikolov.build_dict()
    assert len(word_idx) == 256 and word_idx["<unk>"] == 255 and {"the", "of", "a", "r0", "r249"} <= set(word_idx)
    labels = [gram[-1] for gram in imikolov.train(word_idx, 5)()]
    top3 = sum(labels.count(word_idx[w]) for w in ("the", "of", "a"))
    assert top3 / len(labels) > 0.6


def test_the_offline_movie_reviews_and_conll05_read_as_paddles_unittests_need(home):
    """The offline movie_reviews.zip reads through sentiment's get_word_dict: 2000 reviews over the real
    corpus's 39768 distinct words (Paddle's test_dataset_sentiment); the offline conll05 test set
    gives 10 batches of 16 predicates (test_parallel_executor_crf reads 10)."""
    offline = _offline_datasets()
    os.makedirs(home / "corpora")
    offline.movie_reviews(str(home / "corpora"), np.random.default_rng(0))
    assert len(sentiment.get_word_dict()) == 39768
    os.makedirs(home / "conll05st")
    offline.conll05(str(home / "conll05st"), np.random.default_rng(0))
    assert len(list(conll05.test()())) >= 160


def test_the_offline_wmt16_archive_of_the_upstream_runner_reads_as_paddles(home):
    """tools/make_offline_datasets.py's wmt16.tar.gz (for Paddle's transformer tests, run offline): its
    three parts read, and each German word is its English word's twin (a task a model can learn)."""
    os.makedirs(home / "wmt16")
    _offline_datasets().wmt16(str(home / "wmt16"), np.random.default_rng(0))
    samples = list(wmt16.train(10000, 10000)())
    assert len(samples) == 120 and len(list(wmt16.test(50, 50)())) == 30 and len(list(wmt16.validation(50, 50)())) == 30
    en, de = wmt16.get_dict("en", 10000, reverse=True), wmt16.get_dict("de", 10000, reverse=True)
    for src, trg, label in samples:
        assert src[0] == 0 and src[-1] == 1 and trg[0] == 0 and label[-1] == 1 and trg[1:] == label[:-1]
        assert ["d" + en[i][1:] for i in src[1:-1]] == [de[i] for i in label[:-1]]
