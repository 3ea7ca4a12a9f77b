"""``paddle.dataset.wmt14``: the shrunk WMT14 French-English set Paddle's book uses, as Paddle 1.8's
reader gives it, from Paddle's cache ``~/.cache/paddle/dataset/wmt14/wmt14.tgz`` (members ending in
``src.dict``, ``trg.dict``, ``train/train``, ``test/test``, ``gen/gen``; a line of a set is
``source<TAB>target``). Nothing downloads.

The dictionaries are the first ``dict_size`` lines of the .dict members (a word's id is its line).
A sample is (``<s>`` source ``<e>`` ids, ``<s>`` target ids, target ids ``<e>``); unknown words are
id 2; a pair whose source (with its marks) or target is longer than 80 words is skipped."""

from ...base.errors import PeError
from .common import cached_file, member, open_tar

__all__ = ["train", "test", "gen", "get_dict", "fetch"]

URL_TRAIN = "http://paddlemodels.bj.bcebos.com/wmt/wmt14.tgz"
START, END, UNK = "<s>", "<e>", "<unk>"
UNK_IDX = 2


def _archive():
    return cached_file("wmt14", "wmt14", "wmt14.tgz", URL_TRAIN)


def _members(tf, suffix):
    return [m.name for m in tf.getmembers() if m.name.endswith(suffix)]


def _read_dicts(tar_file, dict_size):
    dicts = []
    with open_tar("wmt14", tar_file) as tf:
        for suffix in ("src.dict", "trg.dict"):
            names = _members(tf, suffix)
            if len(names) != 1:
                raise PeError(
                    f"paddle.dataset.wmt14: {tar_file} should hold one member ending in {suffix}, it holds {len(names)}"
                )
            lines = member("wmt14", tf, names[0]).splitlines()[:dict_size]
            dicts.append({line.strip().decode(): i for i, line in enumerate(lines)})
    return dicts


def reader_creator(tar_file, file_name, dict_size):
    def reader():
        src_dict, trg_dict = _read_dicts(tar_file, dict_size)
        with open_tar("wmt14", tar_file) as tf:
            for name in _members(tf, file_name):
                for line in member("wmt14", tf, name).splitlines():
                    parts = line.decode().strip().split("\t")
                    if len(parts) != 2:
                        continue
                    src_ids = [src_dict.get(w, UNK_IDX) for w in [START, *parts[0].split(), END]]
                    trg_ids = [trg_dict.get(w, UNK_IDX) for w in parts[1].split()]
                    if len(src_ids) > 80 or len(trg_ids) > 80:
                        continue
                    yield src_ids, [trg_dict[START], *trg_ids], [*trg_ids, trg_dict[END]]

    return reader


def train(dict_size):
    return reader_creator(_archive(), "train/train", dict_size)


def test(dict_size):
    return reader_creator(_archive(), "test/test", dict_size)


def gen(dict_size):
    return reader_creator(_archive(), "gen/gen", dict_size)


def get_dict(dict_size, reverse=True):
    """(source dict, target dict); with ``reverse`` {id: word}, else {word: id}."""
    src_dict, trg_dict = _read_dicts(_archive(), dict_size)
    if reverse:
        src_dict = {v: k for k, v in src_dict.items()}
        trg_dict = {v: k for k, v in trg_dict.items()}
    return src_dict, trg_dict


def fetch():
    """Checks that the archive is in place (pe downloads nothing)."""
    _archive()
