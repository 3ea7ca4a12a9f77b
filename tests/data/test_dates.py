"""A date feed's parts in-process (pe_cli/data/dates.py, issue 97 item 5): a ``format:`` read exactly
(never a day/month guess), a time zone converted to UTC, a column mixing fields with and without a
zone refused, ``year: false`` without the linear year part, and the saved state read back. The
expected parts are computed here from Python's own calendar, not from pe."""

import datetime as dt
import math

import numpy as np
import pytest

from pe_cli.data.preprocessing import Preprocessing, check_preprocessing
from pe_cli.data.readers import DataError


def _fit(column, **spec):
    raw = np.array(column, dtype=object)
    return Preprocessing.fit({"d": {"kind": "date", **spec}}, {"d": raw}, {"d": "when"}, "t", "t.csv")


def _parts(d):
    """month, day, weekday, hour and the cyclic parts of a naive datetime (dates.py's PARTS[1:])."""
    yearday, hours = d.timetuple().tm_yday - 1, d.hour + d.minute / 60
    angles = [(d.month - 1) / 12, d.weekday() / 7, yearday / 366, hours / 24]
    cyclic = [f(2 * math.pi * a) for a in angles for f in (math.sin, math.cos)]
    return [(d.month - 1) / 11, (d.day - 1) / 30, d.weekday() / 6, d.hour / 23] + cyclic


def test_a_format_is_read_exactly_and_without_one_a_day_first_field_is_refused_naming_format():
    prep = _fit(["09/03/2024", "01/12/2023", "31/01/2024"], format="%d/%m/%Y")
    out = prep.apply({"d": np.array(["20/07/2023", "02/01/2024"], dtype=object)}, "new.csv")["d"]
    np.testing.assert_allclose(out[0, 1:], _parts(dt.datetime(2023, 7, 20)), atol=1e-6)
    np.testing.assert_allclose(out[1, 1:], _parts(dt.datetime(2024, 1, 2)), atol=1e-6)  # 2 January, not 1 February
    assert prep.feeds["d"]["fill"] == "2024-01-31T00:00:00" and prep.feeds["d"]["format"] == "%d/%m/%Y"
    with pytest.raises(DataError) as e:
        _fit(["2024-03-09", "09/03/2024"])
    assert e.value.message == "t.csv: column 'when': sample 1 holds '09/03/2024', not an ISO date " + (
        "(2024-03-09, or a datetime 2024-03-09T14:30)"
    )
    assert "format: '%d/%m/%Y'" in e.value.hint and "never guesses" in e.value.hint
    with pytest.raises(DataError) as e:
        prep.apply({"d": np.array(["2023-07-20"], dtype=object)}, "new.csv")
    assert "new.csv: column 'when': sample 0 holds '2023-07-20', not a date of format '%d/%m/%Y'" in e.value.message
    for bad, said in (("%d/%m", "has no year"), ("%d/%m/%Y %Q", "bad directive"), ("%Y %Z", "a zone's name")):
        with pytest.raises(DataError) as e:
            check_preprocessing({"d": {"kind": "date", "format": bad}}, ["d"])
        assert said in e.value.message and e.value.key == ("d", "format")


def test_a_time_zone_is_converted_to_utc_and_a_column_mixing_zones_is_refused():
    prep = _fit(["2023-06-01T00:00Z", "2023-12-31T23:30-02:00", "2024-03-09T14:30+01:00"])
    assert prep.feeds["d"]["zone"] is True
    assert prep.feeds["d"]["fill"] == "2024-01-01T01:30:00"  # the median, in UTC: the next day and year
    out = prep.apply({"d": np.array(["2024-07-01T01:00+03:00"], dtype=object)}, "new.csv")["d"]
    np.testing.assert_allclose(out[0, 1:], _parts(dt.datetime(2024, 6, 30, 22, 0)), atol=1e-6)
    with pytest.raises(DataError) as e:
        _fit(["2024-03-09T14:30Z", None, "2024-03-09 14:30"])
    assert e.value.message == (
        "t.csv: column 'when': sample 2 '2024-03-09 14:30' has no time zone; sample 0 '2024-03-09T14:30Z' has one"
    )
    with pytest.raises(DataError) as e:
        prep.apply({"d": np.array(["2024-07-01 01:00"], dtype=object)}, "new.csv")
    assert "sample 0 '2024-07-01 01:00' has no time zone; the training dates have one" in e.value.message


def test_year_false_drops_the_year_part_only_and_the_state_reads_back(tmp_path):
    column = ["2001-05-01", "2010-08-15", None, "2020-01-31T06:00"]
    with_year, without = _fit(column), _fit(column, year=False)
    far = {"d": np.array(["2301-05-01", None], dtype=object)}
    a, b = with_year.apply(far, "x")["d"], without.apply(far, "x")["d"]
    assert a[0, 0] > 10 and b[:, 0].tolist() == [0.0, 0.0]
    np.testing.assert_array_equal(a[:, 1:], b[:, 1:])
    np.testing.assert_allclose(b[0, 1:], _parts(dt.datetime(2301, 5, 1)), atol=1e-6)
    path = tmp_path / "preprocessing.json"
    path.write_text(without.to_text())
    again = Preprocessing.read(str(path))
    np.testing.assert_array_equal(again.apply(far, "x")["d"], b)
    assert again.feeds["d"]["year"] is False and again.feeds["d"]["zone"] is False
