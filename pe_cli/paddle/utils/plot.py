"""``paddle.utils.plot``: Ploter, the training-curve helper of Paddle's book. ``append(title, step,
value)`` records a point of the curve ``title``; ``plot(path)`` draws every curve with points (one
line each, a legend in the upper left) with matplotlib and saves it at ``path``, or, without a path,
shows it in a notebook (IPython's display). With ``DISABLE_PLOT=True`` in the environment, or where
matplotlib is not installed, the points are recorded and ``plot`` draws nothing."""

import os

from ...fluid.unsupported import MissingModule, optional_module

six = optional_module("six")


class PlotData:
    """The steps and values of one curve."""

    def __init__(self):
        self.step, self.value = [], []

    def append(self, step, value):
        self.step.append(step)
        self.value.append(value)

    def reset(self):
        self.step, self.value = [], []


def _pyplot():
    try:
        import matplotlib

        if os.environ.get("DISPLAY") is None and "MPLBACKEND" not in os.environ:
            matplotlib.use("Agg")  # no screen: draw into files
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


class Ploter:
    """``Ploter(*titles)``: one curve per title."""

    def __init__(self, *args):
        self.__args__ = args
        self.__plot_data__ = {title: PlotData() for title in args}
        self.__disable_plot__ = os.environ.get("DISABLE_PLOT")
        self.plt = None if self.__plot_is_disabled__() else _pyplot()

    def __plot_is_disabled__(self):
        return self.__disable_plot__ == "True"

    def append(self, title, step, value):
        assert isinstance(title, str)
        assert title in self.__plot_data__
        self.__plot_data__[title].append(step, value)

    def plot(self, path=None):
        if self.plt is None:
            return
        titles = []
        for title in self.__args__:
            data = self.__plot_data__[title]
            if data.step:
                titles.append(title)
                self.plt.plot(data.step, data.value)
        self.plt.legend(titles, loc="upper left")
        if path is not None:
            self.plt.savefig(path)
        else:
            display = optional_module("IPython.display", "ipython")
            if not isinstance(display, MissingModule):  # in a notebook
                display.clear_output(wait=True)
                display.display(self.plt.gcf())
        self.plt.gcf().clear()

    def reset(self):
        for data in self.__plot_data__.values():
            data.reset()
