"""Writes data/reviews/reviews.csv: 1,500 made-up product reviews with numeric, categorical and text
columns, for the preprocessing examples (configs/reviews_sentiment.yaml, configs/reviews_shipping.yaml).

    python data/reviews/make_reviews.py          # deterministic (seed 7): the same file every time

Columns: id (not a feature: configs ignore it), price (dollars; about 4% left empty: a missing
value), weight_kg, distance_km, category (5 names), review (4 to 12 lowercase words),
sentiment (positive / negative: which kind of word the review has more of, the product's category
tipping a tie) and shipping_cost (2 + 1.5 weight + 0.8 ln(1 + distance) + 0.01 price + noise).
"""

import csv
import math
import os

import numpy as np

ROWS = 1500
CATEGORIES = ["books", "electronics", "garden", "kitchen", "toys"]
POSITIVE = "great excellent love perfect sturdy fast happy recommend works beautiful".split()
NEGATIVE = "broken poor late cheap disappointed refund flimsy slow useless missing".split()
NEUTRAL = "the it this box item arrived was and with for a my of product order color size".split()


def rows(seed=7):
    rng = np.random.default_rng(seed)
    for i in range(ROWS):
        category = CATEGORIES[rng.integers(len(CATEGORIES))]
        price = round(float(rng.lognormal(3.0, 0.6)), 2)
        weight = round(float(rng.uniform(0.1, 8.0)), 2)
        distance = round(float(rng.lognormal(5.0, 1.0)), 1)
        n_pos, n_neg = rng.integers(0, 4), rng.integers(0, 4)
        if n_pos == n_neg:
            n_pos += category in ("books", "toys")
            n_neg += category not in ("books", "toys")
        words = (
            list(rng.choice(POSITIVE, n_pos))
            + list(rng.choice(NEGATIVE, n_neg))
            + list(rng.choice(NEUTRAL, rng.integers(2, 6)))
        )
        rng.shuffle(words)
        cost = 2 + 1.5 * weight + 0.8 * math.log1p(distance) + 0.01 * price + float(rng.normal(0, 0.2))
        yield {
            "id": f"r{i:04d}",
            "price": "" if rng.random() < 0.04 else price,
            "weight_kg": weight,
            "distance_km": distance,
            "category": category,
            "review": " ".join(words),
            "sentiment": "positive" if n_pos > n_neg else "negative",
            "shipping_cost": round(cost, 3),
        }


def main():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reviews.csv")
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(
            f, ["id", "price", "weight_kg", "distance_km", "category", "review", "sentiment", "shipping_cost"]
        )
        writer.writeheader()
        writer.writerows(rows())
    print(f"wrote {path} ({ROWS} rows)")


if __name__ == "__main__":
    main()
