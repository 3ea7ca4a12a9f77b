"""The add_position_encoding layer (ops/position.py) with Fluid 1.8's signature."""

__all__ = ["add_position_encoding"]
from .helper import single
from .checks import fluid_checks


@fluid_checks("add_position_encoding", input=("float32", "float64"))
def add_position_encoding(input, alpha, beta, name=None):
    """alpha * input + beta * sinusoidal position encodings (sines in the first half of the last
    dim, cosines in the second), positions counted within each sequence: the second dim of a 3-D
    input, or the rows of each sequence of a 2-D LoDTensor."""
    return single(
        "add_position_encoding", input, {"X": [input]}, {"alpha": float(alpha), "beta": float(beta)}, name=name
    )
