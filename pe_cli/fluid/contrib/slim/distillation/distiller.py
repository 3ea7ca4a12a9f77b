"""Fluid 1.8's ``contrib.slim.distillation.distiller``: the losses that pull a student's feature map
towards a teacher's. Each ``distiller_loss(graph)`` appends its loss to the merged student+teacher
graph and makes ``graph.out_nodes['loss']`` the student's loss plus ``distillation_loss_weight`` times it."""

from .... import layers
from ....framework import program_guard

__all__ = ["FSPDistiller", "L2Distiller", "SoftLabelDistiller"]


class _Distiller:
    name = "distill"

    def __init__(self, distillation_loss_weight=1):
        self.distillation_loss_weight = distillation_loss_weight

    def distiller_loss(self, graph):
        block = graph.program.global_block()
        with program_guard(graph.program):
            loss = self._loss(block)
            weighted = layers.scale(loss, scale=float(self.distillation_loss_weight))
            total = layers.elementwise_add(block.var(graph.out_nodes["loss"]), weighted)
        graph.out_nodes[f"{self.name}_loss_{len(graph.out_nodes)}"] = loss.name
        graph.out_nodes["loss"] = total.name
        return graph

    @staticmethod
    def _var(block, name, what):
        if not block.has_var(name):
            raise ValueError(f"{what}: {name!r} is not a variable of the student or teacher program")
        return block.var(name)


class L2Distiller(_Distiller):
    """mean((student - teacher)^2) of two feature maps of the same shape."""

    name = "l2"

    def __init__(self, student_feature_map, teacher_feature_map, distillation_loss_weight=1):
        super().__init__(distillation_loss_weight)
        self.student_feature_map, self.teacher_feature_map = student_feature_map, teacher_feature_map

    def _loss(self, block):
        student = self._var(block, self.student_feature_map, "L2Distiller student_feature_map")
        teacher = self._var(block, self.teacher_feature_map, "L2Distiller teacher_feature_map")
        return layers.reduce_mean(layers.square(layers.elementwise_sub(student, teacher)))


class FSPDistiller(_Distiller):
    """mean of the squared differences of the FSP matrices of (student_pairs[i]) and (teacher_pairs[i])."""

    name = "fsp"

    def __init__(self, student_pairs=None, teacher_pairs=None, distillation_loss_weight=1):
        super().__init__(distillation_loss_weight)
        self.student_pairs, self.teacher_pairs = student_pairs or [], teacher_pairs or []
        if len(self.student_pairs) != len(self.teacher_pairs) or not self.student_pairs:
            raise ValueError("FSPDistiller: student_pairs and teacher_pairs must be lists of the same, non-zero length")

    def _loss(self, block):
        losses = []
        for (s0, s1), (t0, t1) in zip(self.student_pairs, self.teacher_pairs):
            student = layers.fsp_matrix(self._var(block, s0, "FSPDistiller"), self._var(block, s1, "FSPDistiller"))
            teacher = layers.fsp_matrix(self._var(block, t0, "FSPDistiller"), self._var(block, t1, "FSPDistiller"))
            losses.append(layers.reduce_mean(layers.square(layers.elementwise_sub(student, teacher))))
        return layers.sums(losses) if len(losses) > 1 else losses[0]


class SoftLabelDistiller(_Distiller):
    """Cross entropy of softmax(student / student_temperature) against the soft labels
    softmax(teacher / teacher_temperature)."""

    name = "soft_label"

    def __init__(
        self,
        student_feature_map=None,
        teacher_feature_map=None,
        student_temperature=1.0,
        teacher_temperature=1.0,
        distillation_loss_weight=1,
    ):
        super().__init__(distillation_loss_weight)
        self.student_feature_map, self.teacher_feature_map = student_feature_map, teacher_feature_map
        self.student_temperature, self.teacher_temperature = student_temperature, teacher_temperature

    def _loss(self, block):
        student = self._var(block, self.student_feature_map, "SoftLabelDistiller student_feature_map")
        teacher = self._var(block, self.teacher_feature_map, "SoftLabelDistiller teacher_feature_map")
        soft = layers.softmax(layers.scale(teacher, scale=1.0 / self.teacher_temperature))
        soft.stop_gradient = True
        logits = layers.scale(student, scale=1.0 / self.student_temperature)
        return layers.reduce_mean(layers.softmax_with_cross_entropy(logits, soft, soft_label=True))
