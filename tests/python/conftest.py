import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


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


@pytest.fixture
def dumbbell():
    return EXAMPLES / "dumbbell.toml"
