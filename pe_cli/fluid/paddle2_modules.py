"""Paddle 2.6's module paths that land on a pe module of another name (``pe fluid``'s import hook,
runner.py): a Paddle module whose names pe keeps elsewhere (``paddle.nn.layer.conv`` is pe's
``paddle/nn/layers/conv.py``, ``paddle.optimizer.adam`` its ``optimizers.py``), and names pe's modules
cannot carry (they never end in a number: ``paddle.vision.models.mobilenetv2``). The module found is
pe's own, with the Paddle names it holds. Data only: importing this imports nothing.

PACKAGES: Paddle packages that are plain modules in pe (``paddle.nn.initializer``); their Paddle
submodules land here too, so the import system takes them as packages."""

MODULES = {
    # paddle.nn.layer: pe's nn/layers/ (the layer classes), nn/layer.py (Layer), nn/container.py
    "paddle.nn.layer": "pe_cli.paddle.nn.layers",
    "paddle.nn.layer.layers": "pe_cli.paddle.nn.layer",
    "paddle.nn.layer.container": "pe_cli.paddle.nn.container",
    "paddle.nn.layer.distance": "pe_cli.paddle.nn.layers.common",  # PairwiseDistance
    "paddle.nn.layer.vision": "pe_cli.paddle.nn.layers.common",  # PixelShuffle, ChannelShuffle
    # paddle.optimizer's one module per class: pe's optimizers.py holds them all
    **{
        f"paddle.optimizer.{m}": "pe_cli.paddle.optimizer.optimizers"
        for m in ("adadelta", "adagrad", "adam", "adamax", "lamb", "lbfgs", "momentum", "optimizer", "rmsprop", "sgd")
    },
    # paddle.tensor's modules: pe's tensor_*.py, or paddle.tensor itself, which holds every function
    "paddle.tensor.array": "pe_cli.paddle.tensor_array",
    **{
        f"paddle.tensor.{m}": "pe_cli.paddle.tensor"
        for m in ("attribute", "einsum", "logic", "manipulation", "ops", "search", "tensor", "layer_function_generator")
    },
    # paddle.nn.functional's modules pe keeps in its other files
    **{
        f"paddle.nn.functional.{m}": "pe_cli.paddle.nn.functional"
        for m in ("distance", "extension", "input", "transformer", "vision")
    },
    # paddle.nn.initializer's one module per initializer
    **{
        f"paddle.nn.initializer.{m}": "pe_cli.paddle.nn.initializer"
        for m in (
            "Bilinear",
            "assign",
            "constant",
            "dirac",
            "initializer",
            "kaiming",
            "lazy_init",
            "normal",
            "orthogonal",
            "uniform",
            "xavier",
        )
    },
    "paddle.static.nn.common": "pe_cli.paddle.static.nn",
    "paddle.static.nn.loss": "pe_cli.paddle.static.nn",
    "paddle.static.nn.metric": "pe_cli.paddle.static.nn",
    "paddle.static.input": "pe_cli.paddle.static",
    "paddle.static.log_helper": "pe_cli.fluid.log_helper",
    "paddle.framework.framework": "pe_cli.paddle.framework",
    "paddle.framework.dtype": "pe_cli.paddle.device",
    "paddle.framework.io_utils": "pe_cli.paddle.framework.io",
    "paddle.metric.metrics": "pe_cli.paddle.metric",
    # paddle.io.dataloader: pe's io/ (datasets.py, samplers.py, loader.py) and data/dataset_loading.py
    "paddle.io.dataloader": "pe_cli.paddle.io",
    "paddle.io.dataloader.batch_sampler": "pe_cli.paddle.io.samplers",
    "paddle.io.dataloader.sampler": "pe_cli.paddle.io.samplers",
    "paddle.io.dataloader.dataset": "pe_cli.paddle.io.datasets",
    "paddle.io.dataloader.collate": "pe_cli.data.dataset_loading",
    "paddle.io.dataloader.worker": "pe_cli.data.dataset_loading",
    "paddle.io.dataloader.fetcher": "pe_cli.data.dataset_loading",
    "paddle.io.dataloader.flat": "pe_cli.data.dataset_loading",
    "paddle.io.dataloader.dataloader_iter": "pe_cli.paddle.io.loader",
    "paddle.io.reader": "pe_cli.paddle.io.loader",
    "paddle.io.multiprocess_utils": "pe_cli.fluid.multiprocess_utils",
    "paddle.utils.unique_name": "pe_cli.fluid.unique_name",
    "paddle.utils.install_check": "pe_cli.fluid.install_check",
    # names ending in a number, which pe's module names never do
    "paddle.vision.models.mobilenetv1": "pe_cli.paddle.vision.models.mobilenet_one",
    "paddle.vision.models.mobilenetv2": "pe_cli.paddle.vision.models.mobilenet_two",
    "paddle.vision.models.mobilenetv3": "pe_cli.paddle.vision.models.mobilenet_three",
    "paddle.vision.models.inceptionv3": "pe_cli.paddle.vision.models.inception_three",
    "paddle.vision.models.shufflenetv2": "pe_cli.paddle.vision.models.shufflenet_two",
    "paddle.vision.datasets.voc2012": "pe_cli.paddle.vision.datasets.voc",
    "paddle.text.datasets.conll05": "pe_cli.paddle.text.datasets.conll",
    "paddle.text.datasets.wmt14": "pe_cli.paddle.text.datasets.wmt_fr_en",
    "paddle.text.datasets.wmt16": "pe_cli.paddle.text.datasets.wmt_multi30k",
    "paddle.static.amp.bf16": "pe_cli.paddle.static.amp.bfloat",
    # Fluid's transpilers and parameter-server helpers, which Paddle 2.6 moved under paddle.distributed
    "paddle.distributed.transpiler": "pe_cli.fluid.transpiler",
    "paddle.distributed.communicator": "pe_cli.fluid.communicator",
    "paddle.distributed.distribute_lookup_table": "pe_cli.fluid.distribute_lookup_table",
    # paddle.geometric's submodules and paddle.inference.wrapper: pe's one module each holds their names
    **{
        f"paddle.geometric.{m}": "pe_cli.paddle.geometric"
        for m in ("math", "message_passing", "message_passing.send_recv", "reindex", "sampling", "sampling.neighbors")
    },
    "paddle.inference.wrapper": "pe_cli.paddle.inference",
    # paddle.distributed.fleet's parts pe has: Fluid 1.8's role makers and data generators (the same API)
    "paddle.distributed.fleet.base": "pe_cli.fluid.incubate.fleet.base",
    "paddle.distributed.fleet.base.distributed_strategy": "pe_cli.paddle.distributed.fleet.strategy",
    "paddle.distributed.fleet.data_generator": "pe_cli.fluid.incubate.data_generator",
    "paddle.distributed.fleet.data_generator.data_generator": "pe_cli.fluid.incubate.data_generator",
    # paddle.vision.transforms' backends: pe's functional.py takes PIL images and arrays alike
    **{
        f"paddle.vision.transforms.functional_{m}": "pe_cli.paddle.vision.transforms.functional"
        for m in ("cv2", "pil", "tensor")
    },
}

# Paddle packages whose prefix maps onto a pe package (``paddle.nn.layer.conv`` -> nn/layers/conv.py)
PREFIXES = {
    "paddle.nn.layer.": "pe_cli.paddle.nn.layers.",
    "paddle.static.amp.bf16.": "pe_cli.paddle.static.amp.bfloat.",
    "paddle.distributed.transpiler.": "pe_cli.fluid.transpiler.",
    "paddle.distributed.fleet.base.": "pe_cli.fluid.incubate.fleet.base.",
}

PACKAGES = frozenset(
    {
        "paddle.distributed.fleet.data_generator",
        "paddle.nn.initializer",
        "paddle.metric",
        "paddle.geometric",
        "paddle.geometric.message_passing",
        "paddle.geometric.sampling",
        "paddle.inference",
    }
)
