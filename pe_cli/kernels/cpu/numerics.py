"""check_numerics's kernel (numpy)."""

import numpy as np

from ...base.errors import PeError


def check_numerics(ins, attrs):
    x = np.asarray(ins["tensor"])
    nan, inf = int(np.isnan(x).sum()), int(np.isinf(x).sum())
    numbers = x[~np.isnan(x)].astype(np.float64)
    if attrs["check_nan_inf_level"] == 0 and (nan or inf):
        raise PeError(
            f"check_numerics: {attrs['op_type'] or 'an op'}'s output {attrs['var_name'] or ''} holds "
            f"{nan} NaN and {inf} inf values"
        )
    stats = np.array([nan, inf, int((x == 0).sum())], np.int64)
    values = np.array(
        [
            numbers.max() if numbers.size else np.nan,
            numbers.min() if numbers.size else np.nan,
            x.astype(np.float64).mean() if x.size else np.nan,
        ],
        np.float32,
    )
    return {"stats": stats, "values": values}
