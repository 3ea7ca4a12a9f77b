"""Small generated data files that model-zoo programs read from their own directory, written where
and as the data step of each program's README leaves them (download, unpack, the program's own
preprocessing script), for programs run offline.

    python tools/offline_program_data.py NAME DIR     # writes dataset NAME under DIR (a program's cwd)

tools/run_upstream.py calls ``write(name, cwd)`` for a program whose manifest entry has
``"data": NAME``. The real files are far larger; nothing here is a sample of them:

- ``word2vec_text8`` (PaddleRec/word2vec): ``data/text/text8`` (a text8-like corpus, one line of
  lower-case words), ``data/test_build_dict`` (``word count`` lines, most frequent first, rare words
  summed into ``<UNK>``: ``preprocess.py --build_dict``), ``data/test_build_dict_word_to_id_`` and
  ``data/convert_text8/convert_text8`` (word ids: ``preprocess.py --filter_corpus``).
- ``census_income`` (PaddleRec/multi_task): ``train_data/train_data.csv`` and
  ``test_data/test_data.csv`` as ``data_preparation.py`` writes them with the pandas of their
  requirements.txt (0.23: one-hot columns of 0/1): a header, then the two labels (marital status,
  income) and 499 features, 11 numeric and 488 one-hot.
- ``ncf_ml1m`` (PaddleRec/ncf): ``Data/ml-1m.train.rating``, ``Data/ml-1m.test.rating``,
  ``Data/ml-1m.test.negative`` (Data.zip's files: ``user<TAB>item<TAB>rating<TAB>time``; a user's
  held-out item and 99 items they did not rate) and ``Data/train_data.csv`` (``user,item,label``: each
  rated item, then 4 unrated ones: ``get_train_data.py --num_neg 4``).
"""

import os
import sys

import numpy as np


def _write(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def word2vec_text8(cwd, rng):
    vocab = [f"{a}{b}" for a in "abcdefghij" for b in "klmnopqrstuvwxyz"][:150]
    ranks = np.arange(1, len(vocab) + 1)
    words = rng.choice(vocab, size=20000, p=(1 / ranks) / (1 / ranks).sum())
    _write(os.path.join(cwd, "data", "text", "text8"), " " + " ".join(words))
    counts = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    kept = {w: c for w, c in counts.items() if c > 5}  # preprocess.py's --min_count 5
    kept["<UNK>"] = sum(c for c in counts.values() if c <= 5)
    ordered = sorted(kept.items(), key=lambda wc: -wc[1])
    _write(os.path.join(cwd, "data", "test_build_dict"), "".join(f"{w} {c}\n" for w, c in ordered))
    ids = {w: i for i, (w, _) in enumerate(ordered)}
    _write(os.path.join(cwd, "data", "test_build_dict_word_to_id_"), "".join(f"{w} {i}\n" for w, i in ids.items()))
    total, lines = sum(kept.values()), []
    for start in range(0, len(words), 1000):  # --downsample 0.001 keeps a frequent word with this probability
        line = []
        for w in words[start : start + 1000]:
            idx = ids.get(w, ids["<UNK>"])
            keep = ((ordered[idx][1] / (0.001 * total)) ** 0.5 + 1) * (0.001 * total) / ordered[idx][1]
            if rng.random() <= keep:
                line.append(str(idx))
        lines.append(" ".join(line) + " ")
    _write(os.path.join(cwd, "data", "convert_text8", "convert_text8"), "\n".join(lines) + "\n")


CENSUS_NUMERIC = [
    "age",
    "wage_per_hour",
    "capital_gains",
    "capital_losses",
    "stock_dividends",
    "instance_weight",
    "num_emp",
    "own_or_self",
    "vet_benefits",
    "weeks_worked",
    "year",
]
# The census's categorical columns with their number of values, 488 in all (the real set's 499 features).
CENSUS_CATEGORIES = {
    "class_worker": 9,
    "det_ind_code": 52,
    "det_occ_code": 47,
    "education": 17,
    "hs_college": 3,
    "major_ind_code": 24,
    "major_occ_code": 15,
    "race": 5,
    "hisp_origin": 10,
    "sex": 2,
    "union_member": 3,
    "unemp_reason": 6,
    "full_or_part_emp": 8,
    "tax_filer_stat": 6,
    "region_prev_res": 6,
    "state_prev_res": 51,
    "det_hh_fam_stat": 38,
    "det_hh_summ": 8,
    "mig_chg_msa": 10,
    "mig_chg_reg": 9,
    "mig_move_reg": 10,
    "mig_same": 3,
    "mig_prev_sunbelt": 4,
    "fam_under_18": 5,
    "country_father": 43,
    "country_mother": 43,
    "country_self": 43,
    "citizenship": 5,
    "vet_question": 3,
}


def census_income(cwd, rng):
    header = (
        ["marital_stat", "income_50k"]
        + CENSUS_NUMERIC
        + [f"{col}_ v{k}" for col, n in CENSUS_CATEGORIES.items() for k in range(n)]
    )
    for folder, n in (("train_data", 640), ("test_data", 320)):
        rows = []
        for i in range(n):
            numeric = [
                rng.integers(0, 90),
                rng.integers(0, 2000),
                rng.integers(0, 5000),
                0,
                rng.integers(0, 300),
                round(float(rng.uniform(500, 3000)), 2),
                rng.integers(0, 7),
                rng.integers(0, 3),
                2,
                rng.integers(0, 53),
                94 + i % 2,
            ]
            onehot = []
            for n_values in CENSUS_CATEGORIES.values():
                hot = [0] * n_values
                hot[(i + int(rng.integers(0, 2))) % n_values] = 1  # every value in both files
                onehot += hot
            income = int(numeric[2] > 2500)  # labels a model can learn from the features
            marital = int(numeric[0] < 30)
            rows.append(",".join(str(v) for v in [marital, income] + numeric + onehot))
        _write(os.path.join(cwd, folder, f"{folder}.csv"), ",".join(header) + "\n" + "\n".join(rows) + "\n")


def ncf_ml1m(cwd, rng):
    users, items = 200, 300
    train, test, negative, samples = [], [], [], []
    for u in range(users):
        rated = rng.choice(items, size=21, replace=False)
        held_out, rest = int(rated[0]), sorted(int(i) for i in rated[1:])
        train += [f"{u}\t{i}\t{int(rng.integers(1, 6))}\t97830{u:04d}" for i in rest]
        test.append(f"{u}\t{held_out}\t5\t97831{u:04d}")
        unrated = sorted(set(range(items)) - set(rated.tolist()))
        negative.append(f"({u},{held_out})\t" + "\t".join(str(i) for i in rng.choice(unrated, 99, replace=False)))
        for i in rest:
            samples.append(f"{u},{i},1")
            samples += [f"{u},{int(j)},0" for j in rng.choice(unrated, 4)]
    data = os.path.join(cwd, "Data")
    for name, lines in (
        ("ml-1m.train.rating", train),
        ("ml-1m.test.rating", test),
        ("ml-1m.test.negative", negative),
        ("train_data.csv", samples),
    ):
        _write(os.path.join(data, name), "\n".join(lines) + "\n")


DATA = {"word2vec_text8": word2vec_text8, "census_income": census_income, "ncf_ml1m": ncf_ml1m}


def write(name, cwd):
    """Writes dataset ``name`` under ``cwd``, from a fixed seed."""
    if name not in DATA:
        raise SystemExit(f"suite.json: 'data': no offline dataset {name!r} (there are: {', '.join(DATA)})")
    DATA[name](cwd, np.random.default_rng(0))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: offline_program_data.py NAME DIR")
    write(sys.argv[1], sys.argv[2])
