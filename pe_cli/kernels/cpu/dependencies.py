"""Kernels of pe_cli/ops/dependencies.py: X passed on (kernels never write their inputs, so sharing is safe),
or cast (transfer_dtype)."""

from ...base.dtypes import convert_dtype


def depend(ins, attrs):
    return {"Out": ins["X"]}


def share_data(ins, attrs):
    return {"Out": ins["X"]}


def nop(ins, attrs):
    return {"Out": list(ins.get("X") or [])}


def npu_identity(ins, attrs):
    return {"out": ins["x"]}


def share_buffer(ins, attrs):
    return {"Out": list(ins["X"]), "XOut": list(ins["X"])}


def transfer_dtype(ins, attrs):
    return {"Out": ins["X"].astype(convert_dtype(attrs["out_dtype"]))}
