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


class MovieInfo:
    """A movie: its id (``index``), its categories and its title (the year taken off)."""

    def __init__(self, index, categories, title):
        self.index = int(index)
        self.categories = categories
        self.title = title

    def value(self):
        """[movie id, [category ids], [title word ids]], as in a sample."""
        meta = _load()
        return [
            self.index,
            [meta["categories"][c] for c in self.categories],
            [meta["title_dict"][w.lower()] for w in self.title.split()],
        ]

    def __str__(self):
        return "<MovieInfo id(%d), title(%s), categories(%s)>" % (self.index, self.title, self.categories)

    __repr__ = __str__


class UserInfo:
    """A user: id (``index``), ``is_male``, ``age`` (index in age_table) and ``job_id``; made from
    users.dat's fields (gender ``M``/``F``, age in years)."""

    def __init__(self, index, gender, age, job_id):
        self.index = int(index)
        self.is_male = gender == "M"
        self.age = age_table.index(int(age))
        self.job_id = int(job_id)

    def value(self):
        """[user id, gender (0 male, 1 female), age index, job id], as in a sample."""
        return [self.index, 0 if self.is_male else 1, self.age, self.job_id]

    def __str__(self):
        return "<UserInfo id(%d), gender(%s), age(%d), job(%d)>" % (
            self.index,
            "M" if self.is_male else "F",
            age_table[self.age],
            self.job_id,
        )

    __repr__ = __str__


def _load():
    if _meta.get("path") == archive():
        return _meta
    path = archive()
    movies, users = {}, {}
    with zipfile.ZipFile(path) as package:
        for movie_id, title, categories in _lines(package, "ml-1m/movies.dat"):
            match = _TITLE.match(title)
            movies[int(movie_id)] = MovieInfo(
                movie_id, categories.split("|"), (match.group(1) if match else title).strip()
            )
        for uid, gender, age, job, _ in _lines(package, "ml-1m/users.dat"):
            users[int(uid)] = UserInfo(uid, gender, age, job)
    words = sorted({w.lower() for m in movies.values() for w in m.title.split()})
    cats = sorted({c for m in movies.values() for c in m.categories})
    _meta.clear()
    _meta.update(
        path=path,
        movies=movies,
        users=users,
        title_dict={w: i for i, w in enumerate(words)},
        categories={c: i for i, c in enumerate(cats)},
    )
    return _meta


def movie_info():
    """{movie id: MovieInfo}."""
    return _load()["movies"]


def user_info():
    """{user id: UserInfo}."""
    return _load()["users"]


def fetch():
    """The cached archive's path (nothing downloads: a missing archive is the one-line error)."""
    return archive()


def get_movie_title_dict():
    return _load()["title_dict"]


def movie_categories():
    return _load()["categories"]


def max_movie_id():
    return max(_load()["movies"])


def max_user_id():
    return max(_load()["users"])


def max_job_id():
    return max(u.job_id for u in _load()["users"].values())


def _reader(rand_seed=0, test_ratio=0.1, is_test=False):
    def reader():
        meta = _load()
        cats, words = meta["categories"], meta["title_dict"]
        rng = np.random.RandomState(rand_seed)
        with zipfile.ZipFile(meta["path"]) as package:
            ratings = _lines(package, "ml-1m/ratings.dat")
        for uid, movie_id, rating, _ in ratings:
            if (rng.random_sample() < test_ratio) != is_test:
                continue
            movie = meta["movies"][int(movie_id)]
            yield meta["users"][int(uid)].value() + [
                movie.index,
                [cats[c] for c in movie.categories],
                [words[w.lower()] for w in movie.title.split()],
                [float(rating) * 2 - 5.0],
            ]

    return reader


def train(rand_seed=0, test_ratio=0.1):
    return _reader(rand_seed, test_ratio, is_test=False)


def test(rand_seed=0, test_ratio=0.1):
    return _reader(rand_seed, test_ratio, is_test=True)
