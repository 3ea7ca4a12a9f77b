"""tests/file_order.py: the order `make test`'s workers take the files in names files that exist,
and puts them first, heaviest first, leaving every other file where xdist put it."""

import os

from file_order import HEAVY_SECONDS, heaviest_first
from paths import REPO


def test_every_file_in_the_table_exists():
    missing = [path for path in HEAVY_SECONDS if not os.path.isfile(os.path.join(REPO, path))]
    assert not missing, f"tests/file_order.py names files that are gone (renamed?): {missing}"


def test_the_heaviest_files_go_first_and_the_others_keep_their_order():
    light = ["tests/a/test_many.py", "tests/b/test_few.py"]
    heavy = sorted(HEAVY_SECONDS, key=HEAVY_SECONDS.get)[-3:]  # the three heaviest, lightest first
    order = heaviest_first([light[0], *heavy, light[1]])
    assert order == [*reversed(heavy), *light]
    assert heaviest_first(light) == light
