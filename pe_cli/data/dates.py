"""A ``date`` feed (data/preprocessing.py's kind): a column of dates or datetimes split into the parts
a model can use, float32 [N, 13]:

    year            standardized: (year - mean) / std, the training years' (std 1 when they are one);
                    0 in every row with ``year: false`` (the parts below only: a date years after the
                    training ones is read as its day of the year, never extrapolated along the years)
    month, day, weekday, hour   scaled into 0..1: (month - 1) / 11, (day - 1) / 30, weekday / 6
                    (Monday 0), hour / 23
    cyclic parts    sin and cos of 2 pi x / period for the month (12), the weekday (7), the day of
                    the year (366) and the time of day (24 hours)

The fields are ISO (``2024-03-09``, ``2024-03-09T14:30``, ``2024-03-09 14:30:00``), or, with
``format:``, written in that strftime format (``%d/%m/%Y``), read exactly: pe never guesses which
number is the day. A field with a time zone (an offset ``+01:00``, ``Z``; ``%z`` in a format) is
converted to UTC and its parts are UTC's; a column holds fields with a zone or fields without, not
both (a training column of either kind fixes it for later data). A missing field (data.missing) is
the training dates' median; a field that does not parse is refused, naming the file, the sample and
the column. Fitted: the year's mean and std, the median date, whether the fields have a zone.
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
ISO = "an ISO date (2024-03-09, or a datetime 2024-03-09T14:30)"
FORMAT_HINT = (
    "give the format its fields are written in: the date's preprocessing: {format: '%d/%m/%Y'} "
    "(strftime codes; pe never guesses day from month), or mark the field missing (data.missing)"
)
ZONE_HINT = "write every field with its offset or none (an offset is converted to UTC)"


def check_format(fmt, key):
    """Refuses a ``format`` strptime cannot read back what it writes, or one without a year."""
    sample = dt.datetime(2024, 3, 9, 14, 30, 15, tzinfo=dt.timezone.utc)
    try:
        dt.datetime.strptime(sample.strftime(fmt), fmt)
    except ValueError as e:
        raise DataError(
            f"format '{fmt}' is not a strftime format pe can read ({e})", key, "e.g. format: '%d/%m/%Y'"
        ) from None
    codes = fmt.replace("%%", "")
    if "%Z" in codes:
        raise DataError(
            f"format '{fmt}' reads a zone's name (%Z), which Python reads without its offset",
            key,
            "write the offset and read it with %z (+0100, Z)",
        )
    if not any(code in codes for code in ("%Y", "%y", "%G")):
        raise DataError(
            f"format '{fmt}' has no year (%Y or %y): every date would be read in 1900", key, "e.g. format: '%d/%m/%Y'"
        )


def _bad(where, column, row, text, fmt):
    what = ISO if fmt is None else f"a date of format '{fmt}'"
    hint = FORMAT_HINT if fmt is None else "fix the field, or mark it missing (data.missing)"
    return DataError(f"{where}: column '{column}': sample {row} holds '{text[:40]}', not {what}", (), hint)


def _zone(where, column, row, text, aware, earlier):
    """The refusal of a field with a zone among fields without (or the other way round)."""
    has = "has no time zone" if aware else "has a time zone"
    if earlier:
        by = f"sample {earlier[0]} '{earlier[1][:40]}' {'has one' if aware else 'has none'}"
    else:
        by = f"the training dates {'have one' if aware else 'have none'}"
    return DataError(f"{where}: column '{column}': sample {row} '{text[:40]}' {has}; {by}", (), ZONE_HINT)


def _dates(raw, where, column, fmt=None, aware=None):
    """([datetime (naive; UTC where a zone was given) or None (missing)], whether the fields had a
    zone: None when all are missing) of a column's fields; ``aware``: what the fields must be."""
    values = np.asarray(raw, dtype=object).reshape(-1)
    out, earlier = [], None
    for i, v in enumerate(values):
        if v is None:
            out.append(None)
            continue
        text = as_text(v).strip()
        try:
            d = dt.datetime.fromisoformat(text) if fmt is None else dt.datetime.strptime(text, fmt)
        except ValueError:
            raise _bad(where, column, i, text, fmt) from None
        if aware is not None and (d.tzinfo is not None) != aware:
            raise _zone(where, column, i, text, aware, earlier)
        aware, earlier = d.tzinfo is not None, earlier or (i, text)
        out.append(_utc(d, where, column, i, text) if aware else d)
    return out, aware


def _utc(d, where, column, row, text):
    try:
        return d.astimezone(dt.timezone.utc).replace(tzinfo=None)
    except OverflowError:
        raise DataError(
            f"{where}: column '{column}': sample {row} '{text[:40]}' is not in the years 1..9999 in UTC", ()
        ) from None


def fit_date(spec, raw, where):
    column = where.columns[0]
    dates, aware = _dates(raw, where.source, column, spec.get("format"))
    dates = [d for d in dates if d is not None]
    if not dates:
        raise DataError(f"{where.column()} is missing in every row", (), "give the date column values")
    years = np.array([d.year + (d.timetuple().tm_yday - 1) / 366 for d in dates])
    std = float(years.std())
    median = sorted(dates)[len(dates) // 2]
    state = {"year_mean": float(years.mean()), "year_std": std if std > 0 else 1.0, "fill": median.isoformat()}
    return {**state, "format": spec.get("format"), "year": spec.get("year") is not False, "zone": aware}


def apply_date(state, raw, where):
    fill = dt.datetime.fromisoformat(state["fill"])
    out = np.empty((len(np.asarray(raw, dtype=object).reshape(-1)), WIDTH), dtype=np.float32)
    column = state.get("column")
    column = column[0] if isinstance(column, list) else column
    dates, _ = _dates(raw, where, column, state.get("format"), state.get("zone"))
    for i, d in enumerate(dates):
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
            (year - state["year_mean"]) / state["year_std"] if state.get("year", True) else 0.0,
            (d.month - 1) / 11,
            (d.day - 1) / 30,
            d.weekday() / 6,
            d.hour / 23,
        ] + [f(a) for a in angles for f in (math.sin, math.cos)]
    return out


def missing_dates(raw):
    """How many fields of a date column are missing (None)."""
    return sum(v is None for v in np.asarray(raw, dtype=object).reshape(-1))


__all__ = ["PARTS", "WIDTH", "apply_date", "check_format", "fit_date", "missing_dates"]
