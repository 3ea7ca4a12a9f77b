"""Writes small generated datasets in Paddle's cache layout, for programs run offline.

    python tools/make_offline_datasets.py DIR      # DIR: e.g. $HOME/.cache/paddle/dataset

Each file has the name and the format of the one ``paddle.dataset`` downloads (the same archive
members, the same line formats), with a few hundred records made from a fixed seed, so that a
program reading it trains and a model can learn from it: uci_housing/housing.data (a linear target),
mnist/*-idx?-ubyte.gz (each digit a bright block at its own place), cifar/cifar-10-python.tar.gz
(each class its own colour), imdb (a positive and a negative vocabulary), imikolov (PTB-like
lines over 253 words, with <s> and <e>), movielens (ml-1m.zip), wmt14/wmt14.tgz (a copy task), wmt16/wmt16.tar.gz (a word-for-word
task), conll05st (its archive, three dictionaries and an embedding) and corpora/movie_reviews.zip
(NLTK's movie reviews). The real files are far larger; nothing here is a sample of them.
Used by tools/run_upstream.py.
"""

import gzip
import io
import os
import struct
import sys
import tarfile
import zipfile

import numpy as np

WORDS = [f"w{i}" for i in range(40)]


def _tar(path, members, mode="w:gz"):
    """A tar archive of {name: bytes}."""
    with tarfile.open(path, mode) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def uci_housing(out, rng):
    x = rng.uniform(0, 10, size=(500, 13))
    y = x @ rng.uniform(-0.2, 0.2, size=13) + 3 + rng.normal(0, 0.1, size=500)
    rows = np.concatenate([x, y[:, None]], axis=1)
    with open(os.path.join(out, "housing.data"), "w") as f:
        f.write("\n".join(" ".join(f"{v:.4f}" for v in row) for row in rows) + "\n")


def mnist(out, rng):
    for prefix, n in (("train", 600), ("t10k", 200)):
        labels = rng.integers(0, 10, size=n).astype(np.uint8)
        images = rng.integers(0, 40, size=(n, 28, 28)).astype(np.uint8)
        for i, label in enumerate(labels):
            r, c = divmod(int(label), 5)
            images[i, 4 + 10 * r : 12 + 10 * r, 2 + 5 * c : 6 + 5 * c] = 250
        header = np.array([2051, n, 28, 28], ">i4").tobytes()
        with gzip.open(os.path.join(out, f"{prefix}-images-idx3-ubyte.gz"), "wb") as f:
            f.write(header + images.tobytes())
        with gzip.open(os.path.join(out, f"{prefix}-labels-idx1-ubyte.gz"), "wb") as f:
            f.write(np.array([2049, n], ">i4").tobytes() + labels.tobytes())


def _py2_cifar_batch(images, labels):
    """A CIFAR batch byte for byte as Python 2's cPickle (protocol 2) wrote the real ones: py2 str keys
    (SHORT_BINSTRING), a uint8 array through numpy 1's ``numpy.core.multiarray._reconstruct``. Python
    3's pickler cannot write py2 strings, and numpy 2 names its module ``numpy._core``, which Fluid
    1.8.5's numpy lacks."""

    def text(s):
        return b"U" + bytes([len(s)]) + s

    n, width = images.shape
    out = (
        b"\x80\x02}q\x00(" + text(b"data") + b"q\x01cnumpy.core.multiarray\n_reconstruct\nq\x02cnumpy\n"
        b"ndarray\nq\x03K\x00\x85U\x01b\x87Rq\x04(K\x01J"
        + struct.pack("<i", n)
        + b"M"
        + struct.pack("<H", width)
        + b"\x86cnumpy\ndtype\nq\x05U\x02u1K\x00K\x01\x87Rq\x06(K\x03U\x01|NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xff"
        b"K\x00tb\x89T" + struct.pack("<i", images.size) + images.tobytes() + b"tb"
    )
    out += text(b"labels") + b"]q\x07(" + b"".join(b"K" + bytes([int(v)]) for v in labels) + b"e"
    return out + text(b"batch_label") + text(b"training batch 1 of 5") + b"u."


def cifar(out, rng):
    members = {}
    for name, n in (("data_batch_1", 300), ("test_batch", 100)):
        labels = rng.integers(0, 10, size=n)
        data = rng.integers(0, 60, size=(n, 3072)).astype(np.uint8)
        for i, label in enumerate(labels):
            data[i, 1024 * (label % 3) : 1024 * (label % 3 + 1)] += np.uint8(20 * label)
        members[f"cifar-10-batches-py/{name}"] = _py2_cifar_batch(data, labels)
    _tar(os.path.join(out, "cifar-10-python.tar.gz"), members)


def imdb(out, rng):
    pos, neg, common = WORDS[:10], WORDS[10:20], WORDS[20:]
    members = {}
    for part in ("train", "test"):
        for label, own in (("pos", pos), ("neg", neg)):
            for i in range(40):
                words = rng.choice(own + common, size=100)
                members[f"aclImdb/{part}/{label}/{i}_7.txt"] = (" ".join(words) + ".\n").encode()
    _tar(os.path.join(out, "imdb%2FaclImdb_v1.tar.gz"), members)


def imikolov(out, rng):
    """PTB-like lines: 250 rare words, each kept by ``build_dict``'s threshold (more than 50 times in
    train and valid: book 04.word2vec infers for word ids up to 211), among three frequent ones that
    make 70% of a line (a distribution a model learns: Paddle's test_word2vec stops once a batch's
    cost is below 5.0, under the 5.5 of a uniform guess)."""
    rare, frequent = [f"r{i}" for i in range(250)], ["the", "of", "a"]
    members, k = {}, 0
    for part, n in (("train", 2000), ("valid", 300), ("test", 100)):
        lines = []
        for _ in range(n):
            words = list(rng.choice(frequent, size=20, p=[0.5, 0.3, 0.2]))
            for pos in rng.choice(20, size=6, replace=False):
                words[pos], k = rare[k % len(rare)], k + 1
            lines.append(" ".join(words))
        members[f"./simple-examples/data/ptb.{part}.txt"] = ("\n".join(lines) + "\n").encode()
    _tar(os.path.join(out, "imikolov%2Fsimple-examples.tgz"), members)


def movielens(out, rng):
    genres = ["Action", "Comedy", "Drama", "Horror"]
    movies = [
        f"{m}::{' '.join(rng.choice(WORDS, size=3))} (1995)::{'|'.join(rng.choice(genres, size=2, replace=False))}"
        for m in range(1, 61)
    ]
    ages = [1, 18, 25, 35, 45, 50, 56]
    users = [f"{u}::{'MF'[u % 2]}::{ages[u % 7]}::{u % 21}::12345" for u in range(1, 41)]
    # 7000 ratings: book 05.recommender_system saves its model at its 21st batch of 256. A user rates
    # every movie alike (1 + id mod 5), a pattern a model learns: Paddle's test_recommender_system
    # stops once its test cost is below 6 (random ratings' variance is 8).
    pairs = [(rng.integers(1, 41), rng.integers(1, 61), rng.integers(1, 6)) for _ in range(7000)]
    ratings = [f"{u}::{m}::{1 + u % 5}::978300760" for u, m, _ in pairs]
    # Movies no one rated, up to the one it infers for (783), give the real set's sizes (18 genres, over
    # 5000 title words): its inference feeds category ids up to 10 and title word ids up to 4140.
    more = [
        "Adventure",
        "Animation",
        "Children's",
        "Crime",
        "Documentary",
        "Fantasy",
        "Film-Noir",
        "Musical",
        "Mystery",
        "Romance",
        "Sci-Fi",
        "Thriller",
        "War",
        "Western",
    ]
    movies += [f"{m}::{' '.join(f't{m}_{k}' for k in range(7))} (1996)::{more[m % 14]}" for m in range(61, 784)]
    with zipfile.ZipFile(os.path.join(out, "movielens%2Fml-1m.zip"), "w") as z:
        z.writestr("ml-1m/movies.dat", "\n".join(movies) + "\n")
        z.writestr("ml-1m/users.dat", "\n".join(users) + "\n")
        z.writestr("ml-1m/ratings.dat", "\n".join(ratings) + "\n")


def wmt14(out, rng):
    vocab = ["<s>", "<e>", "<unk>"] + WORDS
    lines = []
    for _ in range(300):
        words = rng.choice(WORDS, size=rng.integers(3, 9))
        lines.append(" ".join(words) + "\t" + " ".join(words))
    text = ("\n".join(lines) + "\n").encode()
    members = {
        "wmt14/src.dict": ("\n".join(vocab) + "\n").encode(),
        "wmt14/trg.dict": ("\n".join(vocab) + "\n").encode(),
        "wmt14/train/train": text,
        "wmt14/test/test": text[:4000],
        "wmt14/gen/gen": text[:2000],
    }
    _tar(os.path.join(out, "wmt14.tgz"), members)


def wmt16(out, rng):
    """Paddle's wmt16/wmt16.tar.gz (Multi30K): members wmt16/train, wmt16/test and wmt16/val, a line
    ``english<TAB>german``; here each German word is its English word's twin (a word-for-word task).
    Paddle builds its dictionaries from wmt16/train. A copy lies in the cache's top folder too: Fluid
    1.8.5's ``wmt16.get_dict`` rebuilds a dictionary with fewer words than asked for from
    ``DATA_HOME/wmt16.tar.gz`` (not ``wmt16/wmt16.tar.gz``, where it downloads it); the real set's
    dictionaries (11250 and 19220 words) are never that short, these 40-word ones always are."""
    german = {w: "d" + w[1:] for w in WORDS}
    lines = []
    for _ in range(120):
        words = rng.choice(WORDS, size=rng.integers(3, 9))
        lines.append(" ".join(words) + "\t" + " ".join(german[w] for w in words))
    part = {"train": lines, "test": lines[:30], "val": lines[30:60]}
    members = {f"wmt16/{k}": ("\n".join(v) + "\n").encode() for k, v in part.items()}
    for folder in (out, os.path.dirname(out)):
        _tar(os.path.join(folder, "wmt16.tar.gz"), members)


def conll05(out, rng):
    verbs = ["run", "eat", "see"]
    words_lines, props_lines = [], []
    for _ in range(200):  # Paddle's test_parallel_executor_crf reads 10 batches of 16
        n = int(rng.integers(5, 10))
        sentence = list(rng.choice(WORDS, size=n))
        v = int(rng.integers(1, n - 1))
        sentence[v] = verbs[v % 3]
        for i, word in enumerate(sentence):
            tag = (
                "(A0*)"
                if i == v - 1
                else ("(V*)" if i == v else ("(A1*" if i == v + 1 else ("*)" if i == n - 1 and v + 1 < n - 1 else "*")))
            )
            if i == v + 1 and v + 1 == n - 1:
                tag = "(A1*)"
            words_lines.append(word)
            props_lines.append(f"{sentence[v] if i == v else '-'} {tag}")
        words_lines.append("")
        props_lines.append("")
    gz = {}
    for name, lines in (("words/test.wsj.words.gz", words_lines), ("props/test.wsj.props.gz", props_lines)):
        gz["conll05st-release/test.wsj/" + name] = gzip.compress(("\n".join(lines) + "\n").encode())
    _tar(os.path.join(out, "conll05st-tests.tar.gz"), gz)
    with open(os.path.join(out, "conll05st%2FwordDict.txt"), "w") as f:  # the names Paddle saves them by
        f.write("\n".join(["<unk>"] + WORDS + verbs) + "\n")
    with open(os.path.join(out, "conll05st%2FverbDict.txt"), "w") as f:
        f.write("\n".join(verbs) + "\n")
    with open(os.path.join(out, "conll05st%2FtargetDict.txt"), "w") as f:
        f.write("\n".join(["B-A0", "I-A0", "B-A1", "I-A1", "B-V", "I-V", "O"]) + "\n")
    with open(os.path.join(out, "conll05st%2Femb"), "wb") as f:  # Paddle's parameter file: a 16-byte header, float32
        f.write(
            np.zeros(4, np.int32).tobytes() + rng.normal(0, 0.1, (len(WORDS) + 4) * 32).astype(np.float32).tobytes()
        )


def movie_reviews(out, rng):
    """NLTK's movie_reviews corpus as Paddle's ``sentiment`` fetches it (corpora/movie_reviews.zip:
    movie_reviews/neg/cv000_....txt, 1000 reviews of each category) with the real corpus's number
    of distinct words, 39768 ("." and 39767 others: Paddle's test_dataset_sentiment checks it)."""
    vocab = [f"x{i}" for i in range(39767)]
    with zipfile.ZipFile(os.path.join(out, "movie_reviews.zip"), "w", zipfile.ZIP_DEFLATED) as z:
        for k, category in enumerate(("neg", "pos")):
            for i in range(1000):
                start = (k * 1000 + i) * 20  # each word once, then a few frequent ones
                words = vocab[start : start + 20] + list(rng.choice(vocab[:50], size=10))
                z.writestr(f"movie_reviews/{category}/cv{i:03d}_{i * 7 % 10000:05d}.txt", " ".join(words) + " .\n")


DATASETS = {
    "uci_housing": uci_housing,
    "mnist": mnist,
    "cifar": cifar,
    "imdb": imdb,
    "imikolov": imikolov,
    "movielens": movielens,
    "wmt14": wmt14,
    "wmt16": wmt16,
    "conll05st": conll05,
    "corpora": movie_reviews,
}


def main(argv):
    if len(argv) != 1:
        print("usage: make_offline_datasets.py DIR", file=sys.stderr)
        return 2
    for name, make in DATASETS.items():
        out = os.path.join(argv[0], name)
        os.makedirs(out, exist_ok=True)
        make(out, np.random.default_rng(0))
    print(f"offline datasets in {argv[0]}: {', '.join(DATASETS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
