import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"

TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(
    TSHARK is None, reason="tshark is not installed and scripts/test could not install it (apt-get install tshark)"
)


def doc_blocks(doc, lang=""):
    """The fenced blocks of ``lang`` ("python", "toml", "sh"; "" for the
    plain ones, which show output) of the doc ``doc`` (a path from the
    repository root), as written, in order. The tests run the docs'
    examples from their text, so an edit to a doc is tested."""
    blocks, block, fence = [], None, None
    for line in (REPO / doc).read_text().splitlines(keepends=True):
        if block is None:
            if line.startswith("```"):
                block, fence = [], line[3:].strip()
        elif line.rstrip() == "```":
            if fence == lang:
                blocks.append("".join(block))
            block = None
        else:
            block.append(line)
    return blocks


def run_cli(*args, cwd=None, timeout=120):
    """Run ``python -m airtcp ARGS``; return the CompletedProcess (text)."""
    env = dict(os.environ, PYTHONWARNINGS="default")
    return subprocess.run(
        [sys.executable, "-m", "airtcp", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
    )


@pytest.fixture
def wireless():
    return EXAMPLES / "wireless.toml"


# Results with every awkward value: names that need quoting in CSV (a comma,
# a double quote), a missing count (None: the late flow never lost a
# segment), a NaN (it has no RTT sample), a missing name (the UDP flow has
# no TCP variant), transfers and a series.
AWKWARD_TOML = """
[simulation]
duration = "3s"
seed = 3

[[link]]
a = "A"
b = "R"
rate = "10Mbps"
delay = "5ms"

[[link]]
a = "R"
b = 'B, the "far" end'
rate = "2Mbps"
delay = "40ms"
a_to_b = { error = { kind = "bernoulli", per = 0.02, applies_to = "data" } }

[[flow]]
name = "file,1"
from = "A"
to = 'B, the "far" end'
app = { kind = "repeated", size = "50KB", think = "200ms" }

[[flow]]
name = "late"
from = "A"
to = 'B, the "far" end'
start = "2.999s"
app = { kind = "bulk" }

[[flow]]
name = "udp"
from = "A"
to = 'B, the "far" end'
stop = "1s"
app = { kind = "onoff", rate = "200kbps", mean_on = "500ms", mean_off = "500ms" }

[output]
timeseries = { interval = "100ms" }
"""


@pytest.fixture
def awkward(tmp_path):
    path = tmp_path / "awkward.toml"
    path.write_text(AWKWARD_TOML)
    return path


@pytest.fixture
def dumbbell():
    return EXAMPLES / "dumbbell.toml"
