"""CPU kernel of ops/printing.py: print writes its input to standard output in the layout of Fluid's
TensorFormatter (``Variable:``, ``  - message:``, ``  - lod:``, ``  - place:``, ``  - shape:``,
``  - dtype:``, ``  - data: [v v ...]``) and passes it on unchanged."""
import sys

import numpy as np

# numpy dtype -> the C++ type name Fluid prints
_CTYPES = {"float32": "float", "float64": "double", "int32": "int", "int64": "int64_t", "bool": "bool",
           "float16": "paddle::platform::float16", "uint8": "unsigned char", "int8": "signed char",
           "int16": "short"}


def _value(v):
    if isinstance(v, (bool, np.bool_)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"
    return str(v)


def format_tensor(x, name, attrs, lod=None, place="CPUPlace"):
    """The text Fluid's print op writes for ``x`` (a numpy array)."""
    lines = []
    if name and attrs["print_tensor_name"]:
        lines.append(f"Variable: {name}")
    if attrs["message"]:
        lines.append(f"  - message: {attrs['message']}")
    if attrs["print_tensor_lod"]:
        levels = "".join("{" + ", ".join(str(int(i)) for i in level) + "}" for level in (lod or []))
        lines.append("  - lod: {" + levels + "}")
    lines.append(f"  - place: {place}")
    if attrs["print_tensor_shape"]:
        lines.append("  - shape: [" + ", ".join(str(d) for d in x.shape) + "]")
    if attrs["print_tensor_type"]:
        lines.append(f"  - dtype: {_CTYPES.get(x.dtype.name, x.dtype.name)}")
    if x.dtype.name in ("float32", "float64", "int32", "int64", "bool"):
        n = x.size if attrs["summarize"] == -1 else min(attrs["summarize"], x.size)
        lines.append("  - data: [" + " ".join(_value(v) for v in x.reshape(-1)[:n]) + "]")
    else:
        lines.append(f"  - data: unprintable type: {x.dtype.name}")
    return "\n".join(lines) + "\n"


def should_print(attrs):
    """Whether this run of the op prints: its phase, and at most first_n times (counted per op)."""
    phase = attrs["print_phase"]
    if (attrs["is_forward"] and phase == "BACKWARD") or (not attrs["is_forward"] and phase == "FORWARD"):
        return False
    counter = attrs.get("_printed")
    if attrs["first_n"] > 0 and counter is not None:
        counter[0] += 1
        return counter[0] <= attrs["first_n"]
    return True


def print_tensor(x, attrs, place):
    if should_print(attrs):
        lod = (attrs.get("_lod") or {}).get("In")
        sys.stdout.write(format_tensor(x, attrs.get("_in_name", ""), attrs, lod, place))
        sys.stdout.flush()


def print(ins, attrs):  # noqa: A001 -- the kernel of op type 'print'
    x = np.asarray(ins["In"])
    print_tensor(x, attrs, "CPUPlace")
    return {"Out": x.copy()}
