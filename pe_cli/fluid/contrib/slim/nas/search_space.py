"""``paddle.fluid.contrib.slim.nas.search_space``: SearchSpace, the interface of a light NAS search
space (a user's subclass gives the tokens' start and ranges, and builds the networks tokens stand for),
as Fluid 1.8.5's."""

__all__ = ["SearchSpace"]


class SearchSpace:
    """Controller for Neural Architecture Search."""

    def __init__(self, *args, **kwargs):
        pass

    def init_tokens(self):
        """The tokens the search starts from."""
        raise NotImplementedError("Abstract method.")

    def range_table(self):
        """Each token's range: token i takes values in [0, range_table()[i])."""
        raise NotImplementedError("Abstract method.")

    def create_net(self, tokens):
        """(startup_program, train_program, eval_program, train_metrics, eval_metrics, train_reader,
        eval_reader) of the network ``tokens`` stand for."""
        raise NotImplementedError("Abstract method.")

    def get_model_latency(self, program):
        """The latency of the model ``program`` holds."""
        raise NotImplementedError("Abstract method.")
