"""check_numerics's out-kernel (numpy; its meta rule: shapes/numerics.py): the "counts" variant writes stats and
values into the buffers it is handed, after refusing a NaN or inf at check_nan_inf_level 0. The kernel by name is
the rule and the out-kernel through kernels/structured.adapter."""

import numpy as np

from ...base.errors import PeError
from ...shapes.numerics import check_numerics_meta
from ..structured import adapter


def _check_numerics(ins, outs, attrs, meta):
    x = np.asarray(ins["tensor"])
    nan, inf = int(np.isnan(x).sum()), int(np.isinf(x).sum())
    numbers = x[~np.isnan(x)].astype(np.float64)
    if attrs["check_nan_inf_level"] == 0 and (nan or inf):
        raise PeError(
            f"check_numerics: {attrs['op_type'] or 'an op'}'s output {attrs['var_name'] or ''} holds "
            f"{nan} NaN and {inf} inf values"
        )
    outs["stats"][...] = (nan, inf, int((x == 0).sum()))
    outs["values"][...] = (  # (each rounded to float32)
        numbers.max() if numbers.size else np.nan,
        numbers.min() if numbers.size else np.nan,
        x.astype(np.float64).mean() if x.size else np.nan,
    )


CHECK_NUMERICS = _check_numerics
check_numerics = adapter(check_numerics_meta, CHECK_NUMERICS, "check_numerics")
