"""What a command tells on stderr about the data it reads, where the data is not wrong but the user
should know: the count of the values the run's preprocessing filled (numbers, categories, dates; pe
predict, pe infer, pe train and pe eval) and of the categories it never saw in training (read as
``<unknown>``; pe predict and pe infer), per column; ``pe train``'s warning when
a label's column is also read by an input feed (the model would be given the answer)."""

import numpy as np

from ..data.one_hot import fields
from ..data.vocabulary import UNKNOWN
from ..data.vocabulary import as_text
from ..data.dates import missing_dates
from ..data.missing import note
from .build import split_feeds


def _columns(column):
    return column if isinstance(column, list) else [column]


def _numeric(state, raw, unseen=True):
    x = np.asarray(raw, dtype=np.float64).reshape(len(raw), -1)
    out = []
    for i, column in enumerate(_columns(state["column"])[: x.shape[1]]):
        k = int(np.isnan(x[:, i]).sum())
        if k:
            fill = state["fill_value"][i]
            out.append(
                f"column '{column}': {k} missing value{'s' if k != 1 else ''} filled with {fill:g} "
                f"(fill: {state['fill']}, as fitted on the training data)"
            )
    return out


def _date(state, raw, unseen=True):
    k = missing_dates(raw)
    if not k:
        return []
    column = _columns(state["column"])[0]
    return [
        f"column '{column}': {k} missing date{'s' if k != 1 else ''} filled with {state['fill']} (the training dates' median)"
    ]


def _category(state, raw, show_unseen=True):
    x = fields(raw)
    vocabularies = state.get("vocabularies") or [state.get("vocabulary") or []]
    out = []
    for i, column in enumerate(_columns(state["column"])[: x.shape[1]]):
        known = set(vocabularies[min(i, len(vocabularies) - 1)])
        values = [None if v is None else as_text(v).strip() for v in x[:, i]]
        missing = sum(v is None for v in values)
        unseen = [v for v in values if v is not None and v not in known]
        if missing:
            to = "its fill value" if state.get("fill") is not None else UNKNOWN
            out.append(f"column '{column}': {missing} missing value{'s' if missing != 1 else ''} read as {to}")
        if unseen and show_unseen:
            shown = ", ".join(f"'{v}'" for v in sorted(set(unseen))[:3])
            out.append(
                f"column '{column}': {len(unseen)} value{'s' if len(unseen) != 1 else ''} not seen in "
                f"training ({shown}{', ...' if len(set(unseen)) > 3 else ''}) read as {UNKNOWN}"
            )
    return out


_NOTES = {"numeric": _numeric, "category": _category, "date": _date}


def input_notes(preprocessing, raw, unseen=True):
    """Lines (without a prefix) counting, per column of ``raw`` {feed: raw fields}, the missing values
    ``preprocessing`` fills and (``unseen``) the categories its vocabularies do not hold."""
    if preprocessing is None:
        return []
    out = []
    for feed, state in preprocessing.feeds.items():
        if feed in raw and state["kind"] in _NOTES:
            out += _NOTES[state["kind"]](state, raw[feed], unseen)
    return out


def tell_fills(preprocessing, raw, where):
    """Writes input_notes' counts of the filled values (not the unseen categories: the training data
    defined them) on stderr, each line prefixed with ``where`` (pe train's and pe eval's data)."""
    for line in input_notes(preprocessing, raw, unseen=False):
        note(f"{where}: {line}")


def label_leaks(cfg):
    """Lines naming each label feed whose table column an input feed also reads."""
    source = cfg.data["data"]["train"] or {}
    columns = {f: _columns((source.get("columns") or {}).get(f, f)) for f in cfg.model.feeds}
    inputs, labels = split_feeds(cfg.model)
    out = []
    for label in labels:
        for column in columns[label]:
            readers = [f for f in inputs if column in columns[f]]
            if readers:
                out.append(
                    f"the label column '{column}' (feed '{label}') is also read by the input feed "
                    f"'{readers[0]}': the model is given the answer; take '{column}' out of "
                    f"the columns of '{readers[0]}'"
                )
    return out


__all__ = ["input_notes", "label_leaks", "tell_fills"]
