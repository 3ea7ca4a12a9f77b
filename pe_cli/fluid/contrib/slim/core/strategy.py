"""Fluid 1.8's ``contrib.slim.core.strategy``: the base of compression strategies. A strategy is
active from ``start_epoch`` to ``end_epoch``; the Compressor calls its hooks in this order:
on_compression_begin, then per epoch on_epoch_begin, on_batch_begin/on_batch_end per batch,
on_epoch_end, and finally on_compression_end."""

__all__ = ["Strategy"]


class Strategy:
    """Base class of strategies; each hook receives the Compressor's Context."""

    def __init__(self, start_epoch=0, end_epoch=0):
        self.start_epoch = start_epoch
        self.end_epoch = end_epoch

    def on_compression_begin(self, context):
        pass

    def on_epoch_begin(self, context):
        pass

    def on_epoch_end(self, context):
        pass

    def on_batch_begin(self, context):
        pass

    def on_batch_end(self, context):
        pass

    def on_compression_end(self, context):
        pass

    def restore_from_checkpoint(self, context):
        pass
