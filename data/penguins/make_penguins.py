"""Writes data/penguins/penguins.csv: 344 made-up penguins shaped like the Palmer penguins table
(species, island, four measurements, sex, year; the per-species means and spreads of the real
table, a few values missing as 'NA'), the rows sorted by species as the real table's are (Adelie,
Gentoo, Chinstrap: a split must stratify), for configs/penguins.yaml. Nothing is downloaded: every
value is drawn here.

    python data/penguins/make_penguins.py            # deterministic (seed 3): the same file every time
    python data/penguins/make_penguins.py OUT.csv --rows 90 --seed 5
"""

import argparse
import csv
import os

import numpy as np

# species: (share, islands and their shares, means and standard deviations of bill length, bill
# depth, flipper length, body mass)
SPECIES = {
    "Adelie": (
        0.44,
        {"Biscoe": 0.29, "Dream": 0.37, "Torgersen": 0.34},
        (38.8, 2.7),
        (18.3, 1.2),
        (190.0, 6.5),
        (3700.0, 460.0),
    ),
    "Chinstrap": (0.20, {"Dream": 1.0}, (48.8, 3.3), (18.4, 1.1), (195.8, 7.1), (3733.0, 384.0)),
    "Gentoo": (0.36, {"Biscoe": 1.0}, (47.5, 3.1), (15.0, 1.0), (217.2, 6.5), (5076.0, 504.0)),
}
ORDER = ["Adelie", "Gentoo", "Chinstrap"]  # the real table's order of its rows
COLUMNS = ["species", "island", "bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g", "sex", "year"]


def rows(n, seed):
    rng = np.random.default_rng(seed)
    names = list(SPECIES)
    species = rng.choice(names, size=n, p=[SPECIES[s][0] for s in names])
    out = []
    for s in species:
        _, islands, *measures = SPECIES[s]
        island = rng.choice(list(islands), p=list(islands.values()))
        sex = rng.choice(["male", "female"])
        shift = 0.5 if sex == "male" else -0.5  # males are larger, as in the real table
        values = [m + sd * (rng.standard_normal() + shift) for m, sd in measures]
        out.append(
            [
                s,
                island,
                f"{values[0]:.1f}",
                f"{values[1]:.1f}",
                str(int(round(values[2]))),
                str(int(round(values[3] / 25) * 25)),
                sex,
                str(rng.choice([2007, 2008, 2009])),
            ]
        )
    for i in rng.choice(n, size=max(1, n // 100), replace=False):  # a few measured nothing at all
        out[i][2:7] = ["NA"] * 5
    for i in rng.choice(n, size=max(1, n // 40), replace=False):  # a few of unknown sex
        out[i][6] = "NA"
    return sorted(out, key=lambda row: ORDER.index(row[0]))  # stable: each species' rows as drawn


def write(path, n=344, seed=3):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(COLUMNS)
        writer.writerows(rows(n, seed))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "out", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "penguins.csv")
    )
    parser.add_argument("--rows", type=int, default=344)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    write(args.out, args.rows, args.seed)
