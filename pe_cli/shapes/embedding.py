"""The embedding family's shape rule, shared by shape inference and the kernels of both devices."""


def lookup_out_shape(ids_shape, width):
    """Fluid's lookup_table: Ids [..., 1] -> [..., D]; Ids [N] (or [..., T]) -> [N, D] ([..., T, D])."""
    ids_shape = list(ids_shape)
    if len(ids_shape) > 1 and ids_shape[-1] == 1:
        ids_shape = ids_shape[:-1]
    return ids_shape + [width]
