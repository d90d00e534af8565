"""``airtcp bench``: simulator speed on fixed dumbbell scenarios, and what a
user feels: the whole ``airtcp run`` process, large topologies, many runs.

Each scenario runs in a fresh process (multiprocessing "spawn") so that its
peak resident memory is its own; "wall s" covers the event loop only (and
"ns/event" divides it by the events), "collect s" the collection of the
results at the end (a cost per flow, not per event), "setup s" loading and
building the world (validation included), "total s" all of these and the
conversion of results to Python. ``airtcp run FILE`` is timed
as a whole process (start-up, imports, summary), and ``run_many`` on one
and two threads.

>>> from airtcp.bench import dumbbell
>>> import airtcp
>>> sc = airtcp.load(dumbbell(n=3, bottleneck="10Mbps", duration_s=1))
>>> (sc.nodes, sc.links, sc.flows)
(8, 7, 3)
"""

from __future__ import annotations

import json
import multiprocessing
import sys
from dataclasses import dataclass
from typing import Any


def dumbbell(
    n: int,
    bottleneck: str,
    duration_s: float,
    access: str = "100Mbps",
    bottleneck_delay: str = "10ms",
    red_limit_pkts: int | None = None,
    variant: str = "newreno",
    seed: int = 1,
) -> dict[str, Any]:
    """A dumbbell as a scenario dict: n senders s<i> -> R1 -> R2 -> n
    receivers d<i>, access links ``access`` with 1 ms delay, the R1-R2
    bottleneck with gentle RED (ECN off), one bulk TCP flow s<i> -> d<i>
    per pair, starts staggered over the first second (the first half of a
    shorter run).
    """
    if red_limit_pkts is None:
        # about a bandwidth-delay product at a ~25 ms RTT, at least 100 packets
        rate_bps = float(bottleneck.removesuffix("Mbps")) * 1e6 if bottleneck.endswith("Mbps") else 1e9
        red_limit_pkts = max(100, int(rate_bps * 0.025 / 8000))
    min_th = max(5, red_limit_pkts // 10)
    max_th = max(min_th * 3, red_limit_pkts // 3)
    links: list[dict[str, Any]] = []
    for i in range(n):
        links.append({"a": f"s{i}", "b": "R1", "rate": access, "delay": "1ms"})
    links.append(
        {
            "a": "R1",
            "b": "R2",
            "rate": bottleneck,
            "delay": bottleneck_delay,
            "queue": {
                "kind": "red",
                "limit": f"{red_limit_pkts}pkt",
                "min_th": min_th,
                "max_th": max_th,
                "max_p": 0.1,
                "gentle": True,
                "ecn": False,
            },
        }
    )
    for i in range(n):
        links.append({"a": "R2", "b": f"d{i}", "rate": access, "delay": "1ms"})
    # Every flow starts within the first second, or the first half of a
    # shorter run (a flow starting after the end is an error).
    step_us = int(min(1.0, duration_s / 2) * 1_000_000) // max(n, 1)
    flows = [
        {
            "name": f"f{i}",
            "from": f"s{i}",
            "to": f"d{i}",
            "start": f"{i * step_us}us",
            "tcp": {"variant": variant},
            "app": {"kind": "bulk"},
        }
        for i in range(n)
    ]
    return {
        "simulation": {"duration": f"{duration_s:g}s", "seed": seed},
        "link": links,
        "flow": flows,
    }


def compact_dumbbell(
    n: int, bottleneck: str, duration_s: float, seed: int = 1, bottleneck_delay: str = "10ms"
) -> str:
    """:func:`dumbbell` written compactly (``count``, docs/scenario.md), as
    TOML text: the same scenario, whatever ``n``, in 35 lines."""
    d = dumbbell(1, bottleneck, duration_s, seed=seed)
    q = d["link"][1]["queue"]
    queue = ", ".join(f"{k} = {_toml_scalar(v)}" for k, v in q.items())
    step_us = int(min(1.0, duration_s / 2) * 1_000_000) // max(n, 1)
    return f"""[simulation]
duration = "{duration_s:g}s"
seed = {seed}

[[link]]
count = {n}
a = "s{{i}}"
b = "R1"
rate = "100Mbps"
delay = "1ms"

[[link]]
a = "R1"
b = "R2"
rate = "{bottleneck}"
delay = "{bottleneck_delay}"
queue = {{ {queue} }}

[[link]]
count = {n}
a = "R2"
b = "d{{i}}"
rate = "100Mbps"
delay = "1ms"

[[flow]]
count = {n}
name = "f{{i}}"
from = "s{{i}}"
to = "d{{i}}"
stagger = "{step_us}us"
tcp = {{ variant = "newreno" }}
app = {{ kind = "bulk" }}
"""


def per_flow_share_dumbbell(n: int, duration_s: float, seed: int = 1) -> str:
    """:func:`compact_dumbbell` with a bottleneck of 1 Mb/s per flow over
    60 ms (a 124 ms round trip: about ten 1,500 B segments in flight per
    flow), so that each flow has the same share, and the events the same
    mix, at every size: what changes with ``n`` is memory. On the fixed
    100 Mb/s bottleneck many flows sit in retransmission timeouts instead
    (docs/performance.md, issue 12)."""
    return compact_dumbbell(n, f"{n}Mbps", duration_s, seed=seed, bottleneck_delay="60ms")


def snoop_base_station(n: int, duration_s: float, seed: int = 1) -> str:
    """One Snoop base station ``bs`` serving ``n`` mobile hosts, as TOML
    text with ``count``: fixed host s<i> -> bs over 100 Mb/s, 20 ms, then
    the wireless hop bs -> m<i> (:data:`WIRELESS_HOP`); one bulk NewReno
    flow s<i> -> m<i> per host, starts spread over the first second (the
    first half of a shorter run). The one agent holds every flow: its work
    per packet is what grows with ``n``."""
    return _counted_flows_over(
        n,
        duration_s,
        seed,
        "m",
        f"""[[node]]
name = "bs"
agents = [{{ kind = "snoop" }}]

[[link]]
count = {n}
a = "s{{i}}"
b = "bs"
rate = "100Mbps"
delay = "20ms"

[[link]]
count = {n}
a = "bs"
b = "m{{i}}"
{WIRELESS_HOP}""",
    )


def gsnoop_pairs(n: int, duration_s: float, seed: int = 1) -> str:
    """``n`` G-Snoop gateway pairs, as TOML text with ``count``: s<i> ->
    gA<i> (10 Mb/s, 10 ms), the wireless hop gA<i> -> gB<i>
    (:data:`WIRELESS_HOP`), gB<i> -> d<i> (10 Mb/s, 10 ms); one bulk
    NewReno flow s<i> -> d<i> per pair, starts spread as in
    :func:`snoop_base_station`. 2n agents, each holding one flow."""
    return _counted_flows_over(
        n,
        duration_s,
        seed,
        "d",
        f"""[[node]]
count = {n}
name = "gA{{i}}"
agents = [{{ kind = "gsnoop_a", peer = "gB{{i}}" }}]

[[node]]
count = {n}
name = "gB{{i}}"
agents = [{{ kind = "gsnoop_b", peer = "gA{{i}}" }}]

[[link]]
count = {n}
a = "s{{i}}"
b = "gA{{i}}"
rate = "10Mbps"
delay = "10ms"

[[link]]
count = {n}
a = "gA{{i}}"
b = "gB{{i}}"
{WIRELESS_HOP}

[[link]]
count = {n}
a = "gB{{i}}"
b = "d{{i}}"
rate = "10Mbps"
delay = "10ms"
""",
    )


#: The wireless hop of the agent scenarios: 2 Mb/s, 5 ms, 1% of data
#: packets lost on the way out.
WIRELESS_HOP = """rate = "2Mbps"
delay = "5ms"
a_to_b = { error = { kind = "bernoulli", per = 0.01, applies_to = "data" } }"""


def _counted_flows_over(n: int, duration_s: float, seed: int, dst: str, topology: str) -> str:
    """A run of ``duration_s`` over ``topology`` (TOML tables) with one bulk
    NewReno flow s<i> -> <dst><i> per member, starts spread over the first
    second (the first half of a shorter run)."""
    step_us = int(min(1.0, duration_s / 2) * 1_000_000) // max(n, 1)
    return f"""[simulation]
duration = "{duration_s:g}s"
seed = {seed}

{topology.strip()}

[[flow]]
count = {n}
name = "f{{i}}"
from = "s{{i}}"
to = "{dst}{{i}}"
stagger = "{step_us}us"
tcp = {{ variant = "newreno" }}
app = {{ kind = "bulk" }}
"""


def _toml_scalar(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)
    return repr(v)


def scenarios(quick: bool = False, large: bool = False) -> list[tuple[str, dict[str, Any] | str]]:
    """The benchmark set; ``quick`` shortens every run 10x; ``large`` adds
    the 100,000-flow dumbbell (after the Snoop base station)."""
    k = 0.1 if quick else 1.0
    out: list[tuple[str, dict[str, Any] | str]] = [
        ("dumbbell-10flows-100Mbps", dumbbell(10, "100Mbps", 100 * k)),
        ("dumbbell-1000flows-1Gbps", dumbbell(1000, "1Gbps", 10 * k)),
        ("dumbbell-10000flows-100Mbps", compact_dumbbell(10_000, "100Mbps", 10 * k)),
        # Every flow active, its packets filling the queues: a cost that
        # grows with the packets in the network (as a retransmission
        # timeout's scan of every packet did) shows here.
        ("dumbbell-10000flows-1Mbps-each", per_flow_share_dumbbell(10_000, 4 * k)),
        # One agent holding 10,000 flows: its cost per packet must not grow
        # with the flows it holds.
        ("snoop-10000hosts", snoop_base_station(10_000, 1 * k)),
    ]
    if large:
        out.append(("dumbbell-100000flows-100Mbps", compact_dumbbell(100_000, "100Mbps", 10 * k)))
    return out


@dataclass
class BenchRow:
    name: str
    sim_s: float
    wall_s: float
    collect_s: float
    setup_s: float
    total_s: float
    events: int
    packet_hops: int
    peak_mib: float

    @property
    def events_per_s(self) -> float:
        return self.events / self.wall_s if self.wall_s > 0 else float("nan")

    @property
    def hops_per_s(self) -> float:
        return self.packet_hops / self.wall_s if self.wall_s > 0 else float("nan")

    @property
    def ns_per_event(self) -> float:
        return self.wall_s * 1e9 / self.events if self.events else float("nan")


def _child(text: str, name: str, conn) -> None:
    import resource
    import time

    from . import _core

    t0 = time.perf_counter()
    sc = _core.load(text, name)  # validates and builds the world
    load_s = time.perf_counter() - t0
    d = _core.run(sc, None, None)
    _core.columns([d["tables"]], False)  # the results as Python lists
    total_s = time.perf_counter() - t0
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports KiB, macOS bytes.
    peak_mib = maxrss / 2**20 if sys.platform == "darwin" else maxrss / 1024
    conn.send(
        {
            "sim_s": d["duration_s"],
            "wall_s": d["run_wall_s"],
            "collect_s": d["collect_wall_s"],
            "setup_s": load_s + d["setup_wall_s"],
            "total_s": total_s,
            "events": d["events"],
            "packet_hops": d["packet_hops"],
            "peak_mib": peak_mib,
        }
    )
    conn.close()


def run_one(name: str, scenario: dict[str, Any] | str) -> BenchRow:
    """Run one scenario (a dict or TOML text) in a fresh spawned process."""
    if isinstance(scenario, str):
        text = scenario
    else:
        import tomli_w

        text = tomli_w.dumps(scenario)
    ctx = multiprocessing.get_context("spawn")
    recv, send = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_child, args=(text, f"<bench:{name}>", send), name=f"airtcp-bench-{name}")
    p.start()
    send.close()
    try:
        try:
            out = recv.recv()
        except EOFError:
            out = None
        p.join()
    except BaseException:
        p.terminate()
        p.join()
        raise
    if out is None or p.exitcode != 0:
        raise RuntimeError(f"benchmark {name} failed (worker exit code {p.exitcode})")
    return BenchRow(name=name, **out)


def format_table(rows: list[BenchRow]) -> str:
    from .api import _table

    return _table(
        ["scenario", "simulated s", "wall s", "events/s", "ns/event", "packet-hops/s", "peak MiB", "setup s", "collect s", "total s"],
        [
            [
                r.name,
                f"{r.sim_s:g}",
                f"{r.wall_s:.2f}",
                f"{r.events_per_s:,.0f}",
                f"{r.ns_per_event:.0f}",
                f"{r.hops_per_s:,.0f}",
                f"{r.peak_mib:.1f}",
                f"{r.setup_s:.2f}",
                f"{r.collect_s:.2f}",
                f"{r.total_s:.2f}",
            ]
            for r in rows
        ],
        left=1,
    )


@dataclass
class ProcessRow:
    command: str
    wall_s: float
    peak_mib: float


def whole_process(args: list[str], repeat: int = 3, shown: list[str] | None = None) -> ProcessRow:
    """``python -m airtcp ARGS`` as a user runs it (its output discarded):
    the fastest wall time of ``repeat`` runs and that run's peak memory
    (from wait4, this child's own); the row names the command as ``shown``
    (default: ARGS)."""
    import os
    import subprocess
    import time

    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        p = subprocess.Popen(
            [sys.executable, "-m", "airtcp", *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            raise RuntimeError(f"airtcp {' '.join(args)} failed (exit {p.returncode})")
        peak = usage.ru_maxrss / 2**20 if sys.platform == "darwin" else usage.ru_maxrss / 1024
        if best is None or wall < best.wall_s:
            best = ProcessRow("airtcp " + " ".join(shown or args), wall, peak)
    return best


def format_process(rows: list[ProcessRow]) -> str:
    from .api import _table

    return _table(
        ["whole process", "wall s", "peak MiB"],
        [[r.command, f"{r.wall_s:.3f}", f"{r.peak_mib:.1f}"] for r in rows],
        left=1,
    )


@dataclass
class ThreadsRow:
    runs: int
    sim_s: float
    wall_1_s: float
    wall_2_s: float

    @property
    def speedup(self) -> float:
        return self.wall_1_s / self.wall_2_s if self.wall_2_s > 0 else float("nan")


def threads(runs: int = 50, sim_s: float = 1.0, repeats: int = 3) -> ThreadsRow:
    """``run_many`` of ``runs`` runs of the 10-flow dumbbell (``sim_s``
    simulated seconds each) on 1 and on 2 threads; the results must match.
    Each wall time is the best of ``repeats`` (the whole batch takes a
    fraction of a second, so one scheduler hiccup would otherwise decide
    the ratio)."""
    import time

    from .api import load, run_many

    sc = load(dumbbell(10, "100Mbps", sim_s))
    seeds = range(1, runs + 1)
    walls = []
    results = []
    for workers in (1, 2):
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            res = run_many(sc, seeds, workers=workers, progress=False)
            best = min(best, time.perf_counter() - t0)
        results.append(res)
        walls.append(best)
    if not same_columns(results[0].columns, results[1].columns):
        raise RuntimeError("run_many on 2 threads differs from 1 thread")
    return ThreadsRow(runs, sim_s, walls[0], walls[1])


def same_columns(a: dict, b: dict) -> bool:
    """Whether two results' columns are equal, NaN equal to NaN."""

    def same(x, y) -> bool:
        return x == y or (x != x and y != y)

    return a.keys() == b.keys() and all(
        a[t].keys() == b[t].keys()
        and all(len(a[t][c]) == len(b[t][c]) and all(map(same, a[t][c], b[t][c])) for c in a[t])
        for t in a
    )


def format_threads(r: ThreadsRow) -> str:
    from .api import _table

    return _table(
        ["run_many", "1 thread s", "2 threads s", "speedup"],
        [[f"{r.runs} runs of {r.sim_s:g} s (10-flow dumbbell)", f"{r.wall_1_s:.2f}", f"{r.wall_2_s:.2f}", f"{r.speedup:.2f}x"]],
        left=1,
    )
