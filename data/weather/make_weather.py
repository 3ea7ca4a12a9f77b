"""Writes data/weather/weather.csv: two made-up years of daily weather at three stations (date,
station, humidity, rain, temp_max), for configs/weather_features.yaml: the day's highest
temperature follows the season (a sine over the year), the station (its altitude), the humidity and
rain, with noise of 1.5 degrees; a few humidities are missing ('NA'). Nothing is downloaded: every
value is drawn here.

    python data/weather/make_weather.py            # deterministic (seed 7): the same file every time
    python data/weather/make_weather.py OUT.csv --days 200 --seed 5
"""

import argparse
import csv
import datetime
import math
import os

import numpy as np

STATIONS = {"coast": 2.0, "valley": 0.0, "hills": -4.0}  # degrees above the valley's


def rows(days, seed):
    rng = np.random.default_rng(seed)
    start = datetime.date(2023, 1, 1)
    out = []
    for i in range(days):
        day = start + datetime.timedelta(days=i)
        season = 10.0 * math.sin(2 * math.pi * (day.timetuple().tm_yday - 110) / 365.25)
        for station, offset in STATIONS.items():
            humidity = float(np.clip(rng.normal(65 - season, 12), 15, 100))
            rain = bool(rng.random() < humidity / 250)
            temp = 16.0 + season + offset - 0.06 * (humidity - 65) - 2.5 * rain + rng.normal(0, 1.5)
            out.append(
                [
                    day.isoformat(),
                    station,
                    "NA" if rng.random() < 0.01 else f"{humidity:.0f}",
                    "yes" if rain else "no",
                    f"{temp:.1f}",
                ]
            )
    return out


def write(path, days=730, seed=7):
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["date", "station", "humidity", "rain", "temp_max"])
        writer.writerows(rows(days, seed))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "out", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "weather.csv")
    )
    parser.add_argument("--days", type=int, default=730)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    write(args.out, args.days, args.seed)
