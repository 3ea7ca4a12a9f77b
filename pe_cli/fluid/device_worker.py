"""``paddle.fluid.device_worker``: what each thread of a TrainerDesc runs. Fluid fills its C++
worker's protobuf with it; pe's dataset runs execute the program themselves (pe_cli/data/dataset.py),
so a device worker records its settings and names itself in the trainer desc: Hogwild (lock-free
threads, pe's hogwild.py), Section (a pipeline section); DownpourSGD and DownpourSGDOPT fill
pslib's tables, which pe does not have, and say so."""

from .unsupported import PSLIB, FluidUnsupported

__all__ = ["DeviceWorker", "Hogwild", "DownpourSGD", "Section", "DownpourSGDOPT"]


class DeviceWorker:
    def __init__(self):
        self._program = None
        self._infer = None

    def _set_infer(self, infer=False):
        self._infer = infer

    def _set_fleet_desc(self, fleet_desc):
        self._fleet_desc = fleet_desc

    def _set_program(self, program):
        self._program = program

    def _gen_worker_desc(self, trainer_desc):
        raise NotImplementedError(
            "DeviceWorker does not implement gen_worker_desc, please use Hogwild or DownpourSGD, etc."
        )


class Hogwild(DeviceWorker):
    """Threads updating the shared parameters without locks."""

    def _gen_worker_desc(self, trainer_desc):
        trainer_desc.device_worker_name = "HogwildWorker"


class DownpourSGD(DeviceWorker):
    """pslib's worker (sparse tables pulled and pushed around each step)."""

    _name = "DownpourWorker"

    def _gen_worker_desc(self, trainer_desc):
        raise FluidUnsupported(f"paddle.fluid.device_worker.{type(self).__name__}", PSLIB)


class DownpourSGDOPT(DownpourSGD):
    _name = "DownpourWorkerOpt"


class Section(DeviceWorker):
    """A section of a PipelineOptimizer's program (pe runs the sections in order)."""

    def _gen_worker_desc(self, trainer_desc):
        trainer_desc.device_worker_name = "SectionWorker"


class DeviceWorkerFactory:
    def _create_device_worker(self, worker_type):
        return globals()[worker_type.capitalize()]()
