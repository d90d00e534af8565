"""docs/tcp-conformance.md's account of PRR without SACK on a long NewReno
recovery ("What the bound does to a long NewReno recovery"): the transfer
times, the traced recovery's segment counts and the second loss burst are
what this build gives (the runs are deterministic), so the page cannot
drift from the code. The two figures from other builds (f2ef643's first
reading, and a local build without the bound) are not run here; the page
names them as such."""

import pandas as pd
import pytest

import airtcp
from conftest import REPO

DOC = REPO / "docs" / "tcp-conformance.md"

# One flow, 2 MB, over 100 Mb/s then 10 Mb/s (1 ms and 20 ms one way), a
# DropTail queue of 20 packets and no other loss: slow start overflows the
# queue once, losing 21 segments of one window.
SCENARIO = """
[simulation]
duration = "20s"
seed = 1

[[link]]
a = "S"
b = "R"
rate = "100Mbps"
delay = "1ms"

[[link]]
a = "R"
b = "D"
rate = "10Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = "20pkt" }}

[[flow]]
name = "f"
from = "S"
to = "D"
tcp = {{ variant = "{variant}", proportional_rate_reduction = {prr} }}
app = {{ kind = "file", size = "2MB" }}
"""


def section() -> str:
    text = DOC.read_text()
    start = text.index("**What the bound does to a long NewReno recovery.**")
    end = text.find("\n## ", start)
    return " ".join(text[start : end if end >= 0 else None].split())


def run(variant: str, prr: bool, **observe):
    sc = airtcp.Scenario(SCENARIO.format(variant=variant, prr=str(prr).lower()), "<prr-doc>")
    return airtcp.run(sc, **observe)


@pytest.mark.parametrize(
    "variant, prr, words",
    [
        ("newreno", False, "RFC 6582 alone delivers it in {} s"),
        ("newreno", True, "The reading above shortens the run only to {} s"),
        ("sack", False, "RFC 6675 without and with PRR take {} s"),
        ("sack", True, " s and {} s)."),
    ],
)
def test_the_transfer_times(variant, prr, words):
    (response_s,) = run(variant, prr).transfers.response_s
    assert words.format(f"{response_s:.3f}") in section()


def test_the_traced_recovery(tmp_path):
    """Between 0.45 s and 1.30 s (the one recovery): the segments each
    sends and the retransmissions among them; with PRR, 21 drops in the
    first window and 20 more at 1.32 s."""
    counts = {}
    for prr in (False, True):
        path = tmp_path / f"trace-{prr}.parquet"
        res = run("newreno", prr, trace=str(path))
        assert res.flows.timeouts[0] == 0
        t = pd.read_parquet(path)
        sent = t[(t.event == "send") & (t.node == "S") & (t.payload_bytes > 0)]
        recovery = sent[(sent.time_s > 0.45) & (sent.time_s < 1.30)]
        counts[prr] = (len(recovery), int(recovery.retransmission.sum()))
        drops = t[t.event == "drop"].time_s
    text = section()
    assert f"RFC 6582's inflation sent {counts[False][0]} segments ({counts[False][1]} of them retransmissions)" in text
    assert f"PRR {counts[True][0]} ({counts[True][1]} retransmissions)" in text
    assert (drops < 0.45).sum() == 21 and "(21 drops in one window)" in text
    late = drops[drops > 1.0]
    assert f"lost {len(late)} more at {late.min():.2f} s" in text
