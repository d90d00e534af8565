"""Reproductions of the source documents' evaluations.

One module per source document, each exposing ``EXPERIMENT`` (an
:class:`~airtcp.experiments.base.Experiment`). Run one with
``airtcp reproduce NAME`` or :func:`reproduce`.

>>> from airtcp import experiments
>>> "kick" in experiments.available()
True
"""

from __future__ import annotations

import importlib

from .base import Choice, Claim, ClaimResult, Experiment, Numbers, Scheme, Table, cell_key

# name -> module (in this package); listed in `airtcp reproduce`.
_MODULES = {
    "kick": "kick",
    "gsnoop": "gsnoop",
    "dclor": "dclor",
    "threshold": "threshold",
    "wmecn": "wmecn",
    "matrix": "matrix",  # every scheme on every environment above
}


def available() -> dict[str, str]:
    """{name: title} of every reproduction."""
    return {name: get(name).title for name in _MODULES}


def get(name: str) -> Experiment:
    """The experiment called ``name`` (KeyError if there is none)."""
    if name not in _MODULES:
        raise KeyError(name)
    return importlib.import_module(f"{__name__}.{_MODULES[name]}").EXPERIMENT


def __getattr__(attr: str):
    if attr == "reproduce":
        from .run import reproduce

        return reproduce
    raise AttributeError(attr)


__all__ = [
    "Choice",
    "Claim",
    "ClaimResult",
    "Experiment",
    "Numbers",
    "Scheme",
    "Table",
    "available",
    "cell_key",
    "get",
    "reproduce",
]
