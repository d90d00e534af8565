"""``airtcp bench``: simulator speed on fixed dumbbell scenarios.

Each scenario runs in a fresh process (multiprocessing "spawn") so that its
peak resident memory is its own; wall time covers the simulation only (not
parsing, building or converting results).

>>> from airtcp.bench import dumbbell
>>> import airtcp
>>> sc = airtcp.load(dumbbell(n=3, bottleneck="10Mbps", duration_s=1))
>>> (sc.nodes, sc.links, sc.flows)
(8, 7, 3)
"""

from __future__ import annotations

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
    per pair, starts staggered over the first second.
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
    step_us = 1_000_000 // max(n, 1)
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


def scenarios(quick: bool = False) -> list[tuple[str, dict[str, Any]]]:
    """The benchmark set; ``quick`` shortens every run 10x."""
    k = 0.1 if quick else 1.0
    return [
        ("dumbbell-10flows-100Mbps", dumbbell(10, "100Mbps", 100 * k)),
        ("dumbbell-1000flows-1Gbps", dumbbell(1000, "1Gbps", 10 * k)),
    ]


@dataclass
class BenchRow:
    name: str
    sim_s: float
    wall_s: float
    setup_s: float
    events: int
    packet_hops: int
    peak_mib: float

    @property
    def events_per_s(self) -> float:
        return self.events / self.wall_s if self.wall_s > 0 else float("nan")

    @property
    def hops_per_s(self) -> float:
        return self.packet_hops / self.wall_s if self.wall_s > 0 else float("nan")


def _child(text: str, name: str, conn) -> None:
    import resource

    from . import _core

    d = _core.run(_core.load(text, name), None, None)
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports KiB, macOS bytes.
    peak_mib = maxrss / 2**20 if sys.platform == "darwin" else maxrss / 1024
    conn.send(
        {
            "sim_s": d["duration_s"],
            "wall_s": d["run_wall_s"],
            "setup_s": d["setup_wall_s"],
            "events": d["events"],
            "packet_hops": d["packet_hops"],
            "peak_mib": peak_mib,
        }
    )
    conn.close()


def run_one(name: str, scenario: dict[str, Any]) -> BenchRow:
    """Run one scenario in a fresh spawned process."""
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
        ["scenario", "simulated s", "wall s", "events/s", "packet-hops/s", "peak MiB", "setup s"],
        [
            [
                r.name,
                f"{r.sim_s:g}",
                f"{r.wall_s:.2f}",
                f"{r.events_per_s:,.0f}",
                f"{r.hops_per_s:,.0f}",
                f"{r.peak_mib:.1f}",
                f"{r.setup_s:.2f}",
            ]
            for r in rows
        ],
        left=1,
    )
