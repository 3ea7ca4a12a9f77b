"""``paddle.fluid.data_feed_desc``: DataFeedDesc, the MultiSlot data description (pe_cli/data/datafeed_desc.py)."""

from ..data.datafeed_desc import DataFeedDesc  # noqa: F401

__all__ = ["DataFeedDesc"]
