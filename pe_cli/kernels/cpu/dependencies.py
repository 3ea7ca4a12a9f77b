"""Kernels of pe_cli/ops/dependencies.py: X passed on (kernels never write their inputs, so sharing is safe)."""


def depend(ins, attrs):
    return {"Out": ins["X"]}


def share_data(ins, attrs):
    return {"Out": ins["X"]}


def nop(ins, attrs):
    return {"Out": list(ins.get("X") or [])}
