"""``paddle.dataset.movielens``: MovieLens 1M as Paddle's reader reads it, from Paddle's cache
``~/.cache/paddle/dataset/movielens/ml-1m.zip`` (``ml-1m/movies.dat``, ``users.dat``,
``ratings.dat``, ``::``-separated, latin-1). Nothing downloads: a missing archive is one error.

A sample is ``[user id, gender (0 male, 1 female), age index in age_table, job id, movie id,
[category ids], [title word ids], [score]]`` with score = rating * 2 - 5. Ratings go to the test set
with probability ``test_ratio`` (0.1), drawn from numpy's generator seeded ``rand_seed`` (0) as Paddle
does. Paddle numbers title words and categories in a set's iteration order, which changes between
Python processes; pe numbers them in sorted order, the same every run.
"""
import re
import zipfile

import numpy as np

from ...base.errors import PeError
from .common import cached_file

URL = "http://files.grouplens.org/datasets/movielens/ml-1m.zip"
age_table = [1, 18, 25, 35, 45, 50, 56]
_TITLE = re.compile(r"^(.*)\((\d+)\)$")
_meta = {}


def archive():
    """The cached archive, under the name Fluid 1.8's download gives it (``movielens%2Fml-1m.zip``, from
    Paddle's mirror) or the original's."""
    return cached_file("movielens", "movielens", "ml-1m.zip", URL, also=("movielens%2Fml-1m.zip",))


def _lines(package, member):
    try:
        with package.open(member) as f:
            return [line.decode("latin-1").strip().split("::") for line in f if line.strip()]
    except KeyError:
        raise PeError(f"paddle.dataset.movielens: {archive()} has no {member}") from None


def _load():
    if _meta.get("path") == archive():
        return _meta
    path = archive()
    movies, users = {}, {}
    with zipfile.ZipFile(path) as package:
        for movie_id, title, categories in _lines(package, "ml-1m/movies.dat"):
            match = _TITLE.match(title)
            movies[int(movie_id)] = ((match.group(1) if match else title).strip(), categories.split("|"))
        for uid, gender, age, job, _ in _lines(package, "ml-1m/users.dat"):
            users[int(uid)] = (0 if gender == "M" else 1, age_table.index(int(age)), int(job))
    words = sorted({w.lower() for title, _ in movies.values() for w in title.split()})
    cats = sorted({c for _, cs in movies.values() for c in cs})
    _meta.clear()
    _meta.update(path=path, movies=movies, users=users, title_dict={w: i for i, w in enumerate(words)},
                 categories={c: i for i, c in enumerate(cats)})
    return _meta


def get_movie_title_dict():
    return _load()["title_dict"]


def movie_categories():
    return _load()["categories"]


def max_movie_id():
    return max(_load()["movies"])


def max_user_id():
    return max(_load()["users"])


def max_job_id():
    return max(job for _, _, job in _load()["users"].values())


def _reader(rand_seed=0, test_ratio=0.1, is_test=False):
    def reader():
        meta = _load()
        rng = np.random.RandomState(rand_seed)
        with zipfile.ZipFile(meta["path"]) as package:
            ratings = _lines(package, "ml-1m/ratings.dat")
        for uid, movie_id, rating, _ in ratings:
            if (rng.random_sample() < test_ratio) != is_test:
                continue
            gender, age, job = meta["users"][int(uid)]
            title, cats = meta["movies"][int(movie_id)]
            yield [int(uid), gender, age, job, int(movie_id), [meta["categories"][c] for c in cats],
                   [meta["title_dict"][w.lower()] for w in title.split()], [float(rating) * 2 - 5.0]]
    return reader


def train():
    return _reader(is_test=False)


def test():
    return _reader(is_test=True)
