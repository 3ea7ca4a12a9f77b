"""JSON that pe reads back (a manifest, a trainer state, a split, a preprocessing.json, a pe model):
a key given twice in one object is refused, never the last one kept as ``json.loads`` keeps it (a
``"feeds"`` twice kept the second, empty one, and the data was blamed later)."""

import json


class KeyTwice(ValueError):
    """A key given twice in one JSON object; ``key`` is it, quoted and cut to 60 characters."""

    def __init__(self, key):
        self.key = repr(key[:60]) if isinstance(key, str) else repr(key)[:60]
        super().__init__(
            f"the key {self.key} appears twice in one object (JSON keeps the last, which is not what pe wrote)"
        )


def _once_each(pairs):
    data = {}
    for key, value in pairs:
        if key in data:
            raise KeyTwice(key)
        data[key] = value
    return data


def loads(text):
    """``json.loads(text)``, a key given twice refused (KeyTwice, a ValueError)."""
    return json.loads(text, object_pairs_hook=_once_each)


def load(f):
    return loads(f.read())
