"""The detection_map layer (Fluid's ``layers.detection.detection_map``, outside 1.8's ``__all__``):
fluid.metrics.DetectionMAP and fluid.evaluator.DetectionMAP build it."""

from .helper import LayerHelper

__all__ = []


def detection_map(
    detect_res,
    label,
    class_num,
    background_label=0,
    overlap_threshold=0.3,
    evaluate_difficult=True,
    has_state=None,
    input_states=None,
    out_states=None,
    ap_version="integral",
):
    """Fluid's ``layers.detection.detection_map`` (not in 1.8's ``__all__``; fluid.metrics.DetectionMAP
    builds it): the mAP (float32 [1]) of ``detect_res`` rows (label, score, box) against ``label`` rows
    (label, [difficult,] box), both LoD per image. With ``has_state`` (int32 [1]) and
    ``input_states`` / ``out_states`` ([positive counts, true positives, false positives]) it
    accumulates over batches."""
    helper = LayerHelper("detection_map", input=detect_res)
    out = lambda dtype: helper.create_variable_for_type_inference(dtype, stop_gradient=True)  # noqa: E731
    mean_ap = out("float32")
    states = out_states or [out("int32"), out("float32"), out("float32")]
    inputs = {"DetectRes": [detect_res], "Label": [label]}
    if has_state is not None:
        inputs.update(
            HasState=[has_state], PosCount=[input_states[0]], TruePos=[input_states[1]], FalsePos=[input_states[2]]
        )
    helper.append_op(
        "detection_map",
        inputs,
        {"MAP": [mean_ap], "AccumPosCount": [states[0]], "AccumTruePos": [states[1]], "AccumFalsePos": [states[2]]},
        {
            "overlap_threshold": float(overlap_threshold),
            "evaluate_difficult": bool(evaluate_difficult),
            "ap_type": ap_version,
            "class_num": int(class_num),
            "background_label": int(background_label),
        },
    )
    return mean_ap
