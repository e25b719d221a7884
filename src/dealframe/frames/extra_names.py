"""Names of extra columns: the fields a schema does not know, kept as columns.

A top-level key keeps its own name (a key that is no string too: ``2024``). A key of a
nested object gets its prefix (``target_7``, ``stats_x``; the keys of ``deal_multiples`` get
none), or ``<head>_<key>`` when that name is taken. A name that is still taken (by a column
of the schema, a top-level key, another nested key of the same text) gets the first free of
``_2``, ``_3`` ... . Names are given over every page of a call at once
(:func:`~dealframe.frames.normalize.assemble`): top-level keys first, then nested keys by
head, then text keys before keys that are no strings (``"7"`` before ``7``), so no value is
lost and the frame does not depend on how its rows fell into pages.

A name is given within one call: another call, whose rows hold other keys, may give the same
nested key another name (``target_7`` alone, ``target_7_2`` beside a top-level ``target_7``).
:func:`extra_sources` says where each column that is not a top-level key under its own name
came from (a frame's ``attrs["extra_names"]``), and :func:`renamed` which columns had to be
named otherwise than they asked.

Examples
--------
>>> keys = ["target_7", NestedKey("target", "7", "target_7"), NestedKey("target", 7, "target_7")]
>>> list(extra_labels(keys, reserved=["id", "target_id"]).values())
['target_7', 'target_7_2', 'target_7_3']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from dealframe.arguments import checked_keywords

__all__ = ["NestedKey", "extra_labels", "extra_sources", "label_order", "renamed"]


@dataclass(frozen=True)
class NestedKey:
    """An unknown key of a nested object, as an extra column's source.

    Parameters
    ----------
    head : str
        The nested object's key (``target``).
    key : object
        Its unknown key (``"7"``, or a key of a caller's dict that is no string).
    name : str
        The column name it asks for: its prefix and key (``target_7``).
    """

    head: str
    key: Any
    name: str


@checked_keywords
def label_order(label: Any) -> tuple[str, str]:
    """How extra columns are sorted: by their text, then the name of their type, so that
    ``7`` and ``"7"`` come in the same order on every run.

    Examples
    --------
    >>> sorted(["7", 7, "10"], key=label_order)
    ['10', 7, '7']
    """
    return str(label), type(label).__name__


def _nested_order(key: NestedKey) -> tuple[str, bool, str, str]:
    return key.head, not isinstance(key.key, str), *label_order(key.key)


def _free(first: Iterable[str], stem: str, taken: set[Any]) -> str:
    """The first of ``first`` not in ``taken``, else the first free ``<stem>_2``, ``_3`` ...,
    added to ``taken``."""
    name = next((n for n in first if n not in taken), None)
    number = 2
    while name is None:
        if f"{stem}_{number}" not in taken:
            name = f"{stem}_{number}"
        number += 1
    taken.add(name)
    return name


@checked_keywords
def extra_labels(keys: Iterable[Any], reserved: Iterable[str]) -> dict[Any, Any]:
    """The column label of each extra column's source in ``keys`` (top-level keys as they are,
    :class:`NestedKey` for the keys of nested objects), none of them in ``reserved`` (the
    names of the schema's columns) and no two alike (see the module's rule).

    Examples
    --------
    >>> extra_labels(["target_name"], reserved=["target_name"])
    {'target_name': 'target_name_2'}
    >>> extra_labels([NestedKey("deal_multiples", "x", "x"), "x"], reserved=[])
    {'x': 'x', NestedKey(head='deal_multiples', key='x', name='x'): 'deal_multiples_x'}
    """
    unique = list(dict.fromkeys(keys))
    top = sorted((k for k in unique if not isinstance(k, NestedKey)), key=label_order)
    nested = sorted((k for k in unique if isinstance(k, NestedKey)), key=_nested_order)
    reserved = set(reserved)
    taken: set[Any] = reserved | set(top)
    labels: dict[Any, Any] = {}
    for key in top:
        labels[key] = _free((), str(key), taken) if key in reserved else key
    for nk in nested:
        stem = f"{nk.head}_{nk.key}"
        labels[nk] = _free((nk.name, stem), stem, taken)
    return labels


def _json_key(key: Any) -> Any:
    """A key as JSON holds it: text and numbers as they are, anything else as its text."""
    return key if isinstance(key, (str, int, float)) else str(key)


@checked_keywords
def extra_sources(labels: dict[Any, Any]) -> dict[str, list[Any]]:
    """Where each extra column of ``labels`` (:func:`extra_labels`) came from, for those not
    named as their own top-level key: ``[head, key]`` for a nested key, ``[key]`` for a
    top-level key named otherwise. Plain JSON (``to_parquet`` keeps it in ``attrs``).

    Examples
    --------
    >>> extra_sources(extra_labels(["target_7", NestedKey("target", "7", "target_7")], []))
    {'target_7_2': ['target', '7']}
    """
    out: dict[str, list[Any]] = {}
    for key, label in labels.items():
        if isinstance(key, NestedKey):
            out[str(label)] = [key.head, _json_key(key.key)]
        elif label != key:
            out[str(label)] = [_json_key(key)]
    return out


@checked_keywords
def renamed(labels: dict[Any, Any]) -> list[str]:
    """The extra columns of ``labels`` (:func:`extra_labels`) named otherwise than they asked
    (a top-level key's own name, a nested key's prefixed one), in label order.

    Examples
    --------
    >>> renamed(extra_labels(["target_7", NestedKey("target", "7", "target_7")], []))
    ['target_7_2']
    """
    asked = ((k.name if isinstance(k, NestedKey) else k, label) for k, label in labels.items())
    return sorted((str(label) for name, label in asked if label != name), key=label_order)
