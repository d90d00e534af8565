"""HyStart++ (RFC 9406) beside RFC 5681 slow start, with and without
delayed ACKs, over a grid of single-bottleneck paths (docs/tcp-conformance.md,
"HyStart++ beside RFC 5681 slow start").

One CUBIC+SACK flow with timestamps sends a 10 MB file over a 1 Gb/s access
link (1 ms) and a DropTail bottleneck: 10, 20, 50 or 100 Mb/s, one-way delay
5, 20, 50 or 100 ms, a buffer of 0.25, 0.5 or 1 bandwidth-delay product of
1,040-byte packets (at least 10), and a 64 MB receive window so that the
window, not the receiver, limits the flow. The runs are deterministic (no
random element), so the two slow starts are paired by path. Prints the
paired differences (HyStart++ minus RFC 5681) and writes every run to
hystart_delack_grid.csv.

    python scripts/hystart_delack_grid.py
"""

import itertools

import pandas as pd

import airtcp

MSS_BYTES = 1000  # the scenario default; a packet is 40 B more on the wire


def scenario(rate_mbps, delay_ms, buffer_bdp, delayed_ack, slow_start):
    rtt_s = 2 * (delay_ms + 1) / 1000
    bdp_packets = rate_mbps * 1e6 * rtt_s / 8 / (MSS_BYTES + 40)
    limit = max(10, round(buffer_bdp * bdp_packets))
    tcp = {
        "variant": "sack",
        "cc": "cubic",
        "timestamps": True,
        "slow_start": slow_start,
        "delayed_ack": delayed_ack,
        "rwnd": "64MB",
    }
    return limit, {
        "simulation": {"duration": "60s"},
        "link": [
            {"a": "S", "b": "R", "rate": "1Gbps", "delay": "1ms"},
            {
                "a": "R",
                "b": "D",
                "rate": f"{rate_mbps}Mbps",
                "delay": f"{delay_ms}ms",
                "queue": {"kind": "droptail", "limit": f"{limit}pkt"},
            },
        ],
        "flow": [{"from": "S", "to": "D", "tcp": tcp, "app": {"kind": "file", "size": "10MB"}}],
    }


def run_grid():
    """Every path with both slow starts: one row per run."""
    rows = []
    for rate, delay, buf, delack, ss in itertools.product(
        [10, 20, 50, 100], [5, 20, 50, 100], [0.25, 0.5, 1.0], [True, False], ["rfc5681", "hystart++"]
    ):
        limit, sc = scenario(rate, delay, buf, delack, ss)
        f = airtcp.run(sc).flows.iloc[0]
        assert f.transfers_completed == 1, (rate, delay, buf, delack, ss)
        rows.append(
            dict(
                rate_mbps=rate,
                delay_ms=delay,
                buffer_bdp=buf,
                limit_packets=limit,
                delayed_ack=delack,
                slow_start=ss,
                completion_s=f.end_s - f.start_s,
                queue_drops=f.drops_queue,
                timeouts=f.timeouts,
            )
        )
    return pd.DataFrame(rows)


def paired_summary(runs):
    """Per delayed-ACK setting and metric: both means, the paired
    difference (HyStart++ minus RFC 5681) with mean +/- 2 standard errors,
    and the paths where HyStart++ has more and less."""
    path = ["rate_mbps", "delay_ms", "buffer_bdp", "delayed_ack"]
    paired = runs.pivot_table(index=path, columns="slow_start", values=["completion_s", "queue_drops", "timeouts"])
    rows = []
    for delack in (True, False):
        p = paired.xs(delack, level="delayed_ack")
        for metric in ("queue_drops", "timeouts", "completion_s"):
            d = p[(metric, "hystart++")] - p[(metric, "rfc5681")]
            half = 2 * d.std() / len(d) ** 0.5
            rows.append(
                dict(
                    delayed_ack=delack,
                    metric=metric,
                    rfc5681=p[(metric, "rfc5681")].mean(),
                    hystart=p[(metric, "hystart++")].mean(),
                    difference=d.mean(),
                    low=d.mean() - half,
                    high=d.mean() + half,
                    paths_more=int((d > 0).sum()),
                    paths_less=int((d < 0).sum()),
                )
            )
    return pd.DataFrame(rows)


def main():
    runs = run_grid()
    runs.to_csv("hystart_delack_grid.csv", index=False)
    with pd.option_context("display.width", 200, "display.float_format", "{:.3f}".format):
        print(paired_summary(runs).to_string(index=False))


if __name__ == "__main__":
    main()
