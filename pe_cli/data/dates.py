"""A ``date`` feed (data/preprocessing.py's kind): a column of ISO dates or datetimes
(``2024-03-09``, ``2024-03-09T14:30``, ``2024-03-09 14:30:00``, an offset ``+01:00`` or ``Z`` kept as
written: the local time) split into the parts a model can use, float32 [N, 13]:

    year            standardized: (year - mean) / std, the training years' (std 1 when they are one)
    month, day, weekday, hour   scaled into 0..1: (month - 1) / 11, (day - 1) / 30, weekday / 6
                    (Monday 0), hour / 23
    cyclic parts    sin and cos of 2 pi x / period for the month (12), the weekday (7), the day of
                    the year (366) and the time of day (24 hours)

A missing field (data.missing) is the training dates' median; a field that is no ISO date is
refused, naming the sample and the column. Fitted: the year's mean and std and the median date.
"""

import datetime as dt
import math

import numpy as np

from .readers import DataError
from .vocabulary import as_text

PARTS = (
    "year",
    "month",
    "day",
    "weekday",
    "hour",
    "month_sin",
    "month_cos",
    "weekday_sin",
    "weekday_cos",
    "yearday_sin",
    "yearday_cos",
    "time_sin",
    "time_cos",
)
WIDTH = len(PARTS)


def _parse(value, where, row):
    text = as_text(value).strip()
    try:
        return dt.datetime.fromisoformat(text[:-1] if text.endswith(("Z", "z")) else text).replace(tzinfo=None)
    except ValueError:
        raise DataError(
            f"{where}: sample {row} holds '{text[:40]}', not an ISO date (2024-03-09, or a datetime 2024-03-09T14:30)",
            (),
            "fix the field, or mark it missing (data.missing)",
        ) from None


def _dates(raw, where):
    """[datetime or None] of a column's fields (None: missing)."""
    values = np.asarray(raw, dtype=object).reshape(-1)
    return [None if v is None else _parse(v, where, i) for i, v in enumerate(values)]


def fit_date(spec, raw, where):
    dates = [d for d in _dates(raw, where.source) if d is not None]
    if not dates:
        raise DataError(f"{where.column()} is missing in every row", (), "give the date column values")
    years = np.array([d.year + (d.timetuple().tm_yday - 1) / 366 for d in dates])
    std = float(years.std())
    median = sorted(dates)[len(dates) // 2]
    return {"year_mean": float(years.mean()), "year_std": std if std > 0 else 1.0, "fill": median.isoformat()}


def apply_date(state, raw, where):
    fill = dt.datetime.fromisoformat(state["fill"])
    out = np.empty((len(np.asarray(raw, dtype=object).reshape(-1)), WIDTH), dtype=np.float32)
    for i, d in enumerate(_dates(raw, where)):
        d = fill if d is None else d
        yearday, hours = d.timetuple().tm_yday - 1, d.hour + d.minute / 60 + d.second / 3600
        year = d.year + yearday / 366
        angles = (
            2 * math.pi * (d.month - 1) / 12,
            2 * math.pi * d.weekday() / 7,
            2 * math.pi * yearday / 366,
            2 * math.pi * hours / 24,
        )
        out[i] = [
            (year - state["year_mean"]) / state["year_std"],
            (d.month - 1) / 11,
            (d.day - 1) / 30,
            d.weekday() / 6,
            d.hour / 23,
        ] + [f(a) for a in angles for f in (math.sin, math.cos)]
    return out


__all__ = ["PARTS", "WIDTH", "apply_date", "fit_date"]
