"""CPU kernels of the primitive family (ops/primitive.py): numpy's elementwise functions, in X's dtype.

Structured (pe_cli/shapes/structured.py): ``OUT[op]``, ``out(ins, outs, attrs, meta)``, computes the variant the
op's meta rule chose (pe_cli/shapes/primitive.py) into the buffer it is handed: "ufunc", the op's numpy ufunc
through its ``out=``; "array", the op's numpy form, its new array (cast to X's dtype; a comparison's bool) handed
over (a fresh variant, kernels/structured.fresh_output). The ops' kernels by name (CUDA's host fallbacks,
kernels/cuda/primitive.py) are these over their rules (kernels/structured.adapter)."""

import math

import numpy as np

from ...shapes import primitive as meta_rules
from ..common import table_getattr
from ..structured import adapter, fresh_output
from .launches import by_variant

_erf = np.vectorize(math.erf, otypes=[np.float64])
_FORMS = {  # op -> its numpy form where it is no ufunc
    "erf_p": lambda x: _erf(x.astype(np.float64)),
    "rsqrt_p": lambda x: 1 / np.sqrt(x),
}


def _out(op):
    ufunc, slot = meta_rules.UFUNCS.get(op), "Y" if op in meta_rules.UNARY else "Z"
    form, slots = _FORMS.get(op, ufunc), ("X",) if op in meta_rules.UNARY else ("X", "Y")

    def ufunc_form(ins, outs, attrs, meta):
        ufunc(*(ins[s] for s in slots), out=outs[slot])

    def array(ins, outs, attrs, meta):
        x = ins["X"]
        result = np.asarray(form(*(ins[s] for s in slots)))
        if op not in meta_rules.COMPARISONS:
            result = result.astype(x.dtype, copy=False)
        outs[slot] = fresh_output(result, meta.outputs[slot], tuple(ins.values()))

    variants = {"array": array} if ufunc is None else {"array": array, "ufunc": ufunc_form}
    return by_variant(f"{op}_out", None, **variants)


OUT = {op: _out(op) for op in meta_rules.META}
# the ops' kernels by name, for CUDA's host fallbacks (kernels/cuda/primitive.py's HOST_OPS)
_KERNELS = {op: adapter(meta_rules.META[op], out, op) for op, out in OUT.items()}
__getattr__ = table_getattr(_KERNELS, __name__)
