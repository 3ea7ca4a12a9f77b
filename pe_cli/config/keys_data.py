"""The run config's data keys (docs/CONFIG.md): a data source (``data.train``, ``data.eval``), the
per-feed ``preprocessing`` fitted on data.train, and the per-feed transforms (``data.transforms``). keys.py puts
them into ``RUN``."""

from ..data import preprocessing
from .schema import REQUIRED, Field, MapOf, Section

FORMATS = ("mnist", "idx", "npy", "npz", "csv", "tsv", "jsonl", "folders", "multislot")

SOURCE = Section(
    {
        "format": Field(
            "str", REQUIRED, "mnist, idx, npy, npz, csv, tsv, jsonl, folders or multislot", choices=FORMATS
        ),
        "path": Field(
            "path|null",
            None,
            "mnist, folders: the directory; npz, csv, tsv, jsonl: the file; multislot: a file or a directory of them",
        ),
        "files": MapOf(Field("path"), "idx, npy: one file per feed", key_doc="feed"),
        "split": Field(
            "str", "all", "mnist: train (first 8,000), eval (last 2,000) or all", choices=("train", "eval", "all")
        ),
        "columns": MapOf(
            Field("str|int|list[str]|list[int]"),
            "feed -> source column: npz array name, csv column name(s)/index(es), "
            "mnist image|label (default: the feed's own name)",
            key_doc="feed",
        ),
        "header": Field("bool", True, "csv: the first line names the columns"),
        "delimiter": Field(
            "str|null",
            None,
            "csv: the field separator (default: sniffed: ',' where the first line splits on it, else ; tab or |)",
        ),
        "start": Field("int", 0, "first sample used", min=0),
        "stop": Field("int|null", None, "one past the last sample used (default: the end)", min=0),
        "limit": Field("int|null", None, "use at most this many samples (after start/stop)", min=1),
    },
    "a data source",
    default=None,
)

PREPROCESSING = MapOf(
    Section(
        {
            "kind": Field(
                "str", REQUIRED, "numeric, category, text, image, label or date", choices=preprocessing.KINDS
            ),
            "columns": Field(
                "str|list[str]|null",
                None,
                "the table column this feed reads in every source (numeric and a "
                "one-hot category: a list of columns side by side); default: the feed's name",
            ),
            "scaling": Field(
                "str|null",
                None,
                "numeric: standardize (default), zscore (over n - 1, Ludwig's), minmax, log or none",
                choices=preprocessing.SCALINGS,
            ),
            "fill": Field(
                "str|float|null",
                None,
                "numeric: a missing value's replacement: mean (default), median, zero "
                "or a number; category: the value a missing field stands for (default: the unknown id 0)",
            ),
            "missing": Field(
                "list[str]|null", None, "the fields of this feed's column(s) read as missing (default: data.missing)"
            ),
            "encoding": Field(
                "str|null",
                None,
                "category: ids (default: int64 [1], for an embedding) or one_hot (float32 "
                "[the vocabulary sizes summed], each column one-hot side by side, for an fc)",
                choices=preprocessing.ENCODINGS,
            ),
            "min_count": Field(
                "int|null", None, "category, text: keep values seen this often in training (default 1)", min=1
            ),
            "max_vocabulary": Field("int|null", None, "category, text: at most this many ids (default: all)", min=2),
            "tokenizer": Field(
                "str|null",
                None,
                "text: space_punct (default: words and punctuation marks), whitespace, character or regex",
                choices=preprocessing.TOKENIZERS,
            ),
            "pattern": Field(
                "str|null", None, "text: the tokens are this regular expression's matches (tokenizer: regex)"
            ),
            "lowercase": Field("bool|null", None, "text: lowercase before splitting (default true)"),
            "max_length": Field("int|null", None, "text: tokens kept per sample (default 64)", min=1),
            "sequence": Field(
                "str|null",
                None,
                "text: ragged (default: a lod_level 1 feed) or padded ([N, max_length])",
                choices=preprocessing.SEQUENCES,
            ),
            "lengths_feed": Field("str|null", None, "text, padded: the feed that gets each sample's length"),
            "size": Field("list[int]|null", None, "image: resize to [height, width]"),
            "crop": Field("list[int]|null", None, "image: cut the centre [height, width] (after size)"),
            "mode": Field(
                "str|null", None, "image: L (one channel), RGB (default) or BGR", choices=preprocessing.MODES
            ),
            "scale": Field("float|null", None, "image: multiply the 0..255 values by this (default 1/255)"),
            "mean": Field("float|list[float]|null", None, "image: subtract, per channel (after scale)"),
            "std": Field("float|list[float]|null", None, "image: divide by, per channel (after mean)"),
            "format": Field(
                "str|null",
                None,
                "date: the strftime format of the fields ('%d/%m/%Y'), read exactly (default: ISO 8601)",
            ),
            "year": Field(
                "bool|null", None, "date: false drops the linear year part (no extrapolation along the years)"
            ),
        }
    ),
    "per feed, preprocessing fitted on data.train and saved as <run dir>/preprocessing.json",
    key_doc="feed",
)

TRANSFORM_KEYS = {
    "scale": "multiply by a number (0.00392156 maps 0..255 to 0..1)",
    "normalize": "{mean: m, std: s}: (x - mean) / std; numbers or per-channel lists",
    "reshape": "new shape of one sample",
    "one_hot": "number of classes: integer labels -> one-hot float rows",
    "cast": "convert to a dtype",
}
