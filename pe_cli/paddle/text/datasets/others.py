"""``paddle.text.datasets``' Dataset classes pe does not build yet: one line when made, naming the
``paddle.dataset`` reader of the same cached file that pe has."""

from ....base.errors import unsupported

__all__ = ["Conll05st", "Imdb", "Imikolov", "Movielens", "WMT14", "WMT16"]


def _later(name, reader):
    return unsupported(
        f"paddle.text.datasets.{name}", f"pe does not build this Dataset class yet; {reader} reads the same cached file"
    )


Conll05st = _later("Conll05st", "paddle.dataset.conll05.test()")
Imdb = _later("Imdb", "paddle.dataset.imdb.train(word_idx)")
Imikolov = _later("Imikolov", "paddle.dataset.imikolov.train(word_idx, n)")
Movielens = _later("Movielens", "paddle.dataset.movielens.train()")
WMT14 = _later("WMT14", "paddle.dataset.wmt14.train(dict_size)")
WMT16 = _later("WMT16", "paddle.dataset.wmt16.train(src_dict_size, trg_dict_size)")
