"""airtcp: a deterministic packet-level TCP simulator.

The simulation core is Rust (``airtcp._core``); this package loads scenario
files, runs them for one or many seeds and returns pandas DataFrames.

>>> import airtcp
>>> result = airtcp.run({
...     "simulation": {"duration": "10s", "seed": 1},
...     "link": [
...         {"a": "server", "b": "ap", "rate": "10Mbps", "delay": "20ms"},
...         {"a": "ap", "b": "phone", "rate": "2Mbps", "delay": "5ms",
...          "a_to_b": {"error": {"kind": "bernoulli", "per": 0.01, "applies_to": "data"}}},
...     ],
...     "flow": [{"from": "server", "to": "phone", "app": {"kind": "bulk"}}],
... })
>>> bool(result.flows.goodput_bps[0] > 0)
True
>>> print(result.summary())   # doctest: +SKIP

Public API: :func:`load`, :func:`run`, :func:`run_many`,
:func:`sweep`, :func:`load_results`, :func:`jain_fairness`, :func:`read_trace`, :mod:`plots`,
:class:`Scenario`, :class:`Result`, :class:`SweepResult`,
:class:`ScenarioError` (a ValueError), :class:`DeterministicScenarioWarning`
(several seeds of a scenario that has no random component), ``__version__`` and
``__build__`` (the version and a digest of the simulator's sources: result
caches and Dask workers compare it, so runs of other simulator code are never
reused or mixed). The sweep
functions are imported on first use (``import airtcp`` stays light).
"""

from ._core import ScenarioError, __build__, __version__
from . import plots
from ._trace import read_trace
from .api import DeterministicScenarioWarning, Result, Scenario, jain_fairness, load, run, run_many

# Report (and pickle) the exception as airtcp.ScenarioError, not _core's.
ScenarioError.__module__ = "airtcp"

_SWEEP = ("sweep", "load_results", "SweepResult")


def __getattr__(name: str):
    if name in _SWEEP:
        from .campaign import sweep as _sweep

        return getattr(_sweep, name)
    raise AttributeError(f"module 'airtcp' has no attribute {name!r}")


__all__ = [
    "DeterministicScenarioWarning",
    "Result",
    "Scenario",
    "ScenarioError",
    "SweepResult",
    "__build__",
    "__version__",
    "jain_fairness",
    "load",
    "load_results",
    "plots",
    "read_trace",
    "run",
    "run_many",
    "sweep",
]
