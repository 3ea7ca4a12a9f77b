"""``paddle.batch``: groups the samples of a reader into lists."""

__all__ = ["batch"]


def batch(reader, batch_size, drop_last=False):
    """A reader yielding lists of ``batch_size`` samples of ``reader`` (the last one shorter unless
    ``drop_last``)."""
    batch_size = int(batch_size)
    if batch_size <= 0:
        raise ValueError(f"batch_size should be a positive integer, got {batch_size}")

    def batch_reader():
        group = []
        for sample in reader():
            group.append(sample)
            if len(group) == batch_size:
                yield group
                group = []
        if group and not drop_last:
            yield group

    return batch_reader
