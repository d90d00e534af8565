"""Bad arguments at every entry point: a clear error, never a crash, a hang
or an allocation without bound. A scenario file is read to a bound
(``MAX_SCENARIO_FILE_BYTES``, docs/scenario.md). The CLI runs here under a
3 GB address-space limit and a timeout, so that a regression fails fast
(MemoryError, exit 1) instead of taking the machine's memory."""

import itertools
import os
import resource
import shlex
import subprocess
import sys

import pytest

import airtcp
import airtcp.experiments
from airtcp import _core
from conftest import EXAMPLES, REPO, doc_blocks

CAP_BYTES = 3 * 2**30


def _cap():
    resource.setrlimit(resource.RLIMIT_AS, (CAP_BYTES, CAP_BYTES))


@pytest.fixture(autouse=True)
def _capped_here():
    """The tests that call the API in this process get 2 GB of address
    space more than it has: a regression raises MemoryError, it does not
    take the machine's memory."""
    with open("/proc/self/status") as f:
        size = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (size + 2 * 2**30, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def run_capped(*args, stdin=None, timeout=60, cwd=None):
    """``python -m airtcp ARGS`` with at most 3 GB of address space."""
    return subprocess.run(
        [sys.executable, "-m", "airtcp", *map(str, args)],
        capture_output=True,
        text=True,
        stdin=stdin,
        env=dict(os.environ, PYTHONWARNINGS="default"),
        preexec_fn=_cap,
        timeout=timeout,
        cwd=cwd,
    )


def one_line(p, *words):
    """Exit 2 and one error line on stderr holding ``words`` (after
    argparse's usage block for a bad option, as for --runs 0); nothing on
    stdout."""
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    lines = p.stderr.splitlines()
    if lines and lines[0].startswith("usage: "):
        assert lines[-1].startswith("airtcp ") and ": error: argument " in lines[-1], p.stderr
        assert all(line.startswith(" ") for line in lines[1:-1]), p.stderr
    else:
        assert len(lines) == 1, p.stderr
    for w in words:
        assert w in lines[-1], (w, lines[-1])
    assert p.stdout == ""
    return lines[-1]


LIMIT_MB = f"larger than {_core.MAX_SCENARIO_FILE_BYTES // 1_000_000} MB"


# -- scenario files are read to a bound ----------------------------------


def test_the_file_limit_is_the_documented_one():
    assert _core.MAX_SCENARIO_FILE_BYTES == 32_000_000
    assert "32 MB" in _core.SCENARIO_FILE_TOO_LARGE


@pytest.mark.parametrize("cmd", ["validate", "run", "sweep"])
def test_dev_zero_is_refused_not_read_whole(cmd, tmp_path):
    args = [cmd, "/dev/zero"] + (["--out", tmp_path / "o"] if cmd == "sweep" else [])
    line = one_line(run_capped(*args), LIMIT_MB)
    assert line == f"/dev/zero: {_core.SCENARIO_FILE_TOO_LARGE}"


def test_a_file_one_byte_over_the_limit_is_refused(tmp_path):
    big = tmp_path / "big.toml"
    with open(big, "wb") as f:
        f.truncate(_core.MAX_SCENARIO_FILE_BYTES + 1)
    for source in (big, str(big)):
        with pytest.raises(airtcp.ScenarioError) as ei:
            airtcp.load(source)
        assert str(ei.value) == f"{big}: {_core.SCENARIO_FILE_TOO_LARGE}"
        assert ei.value.file == str(big) and ei.value.line is None
    with pytest.raises(airtcp.ScenarioError, match=LIMIT_MB):
        airtcp.run(big)
    with pytest.raises(airtcp.ScenarioError, match=LIMIT_MB):
        airtcp.run_many(big, seeds=[1, 2])
    with pytest.raises(airtcp.ScenarioError, match=LIMIT_MB):
        airtcp.sweep(big, out=tmp_path / "o", progress=False)
    one_line(run_capped("validate", big), LIMIT_MB)


def test_dev_zero_from_python():
    with pytest.raises(airtcp.ScenarioError, match=LIMIT_MB):
        airtcp.load("/dev/zero")
    with pytest.raises(airtcp.ScenarioError, match=LIMIT_MB):
        airtcp.run("/dev/zero")


def test_a_pipe_still_works_and_an_endless_one_is_refused():
    text = (EXAMPLES / "wireless.toml").read_text()
    p = subprocess.run(
        [sys.executable, "-m", "airtcp", "validate", "/dev/stdin"],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0 and p.stdout.startswith("/dev/stdin: ok"), p.stderr
    yes = subprocess.Popen(["yes", "# a comment"], stdout=subprocess.PIPE)
    try:
        one_line(run_capped("validate", "/dev/stdin", stdin=yes.stdout), LIMIT_MB)
    finally:
        yes.kill()
        yes.wait()
        yes.stdout.close()


def test_special_files_get_one_line(tmp_path):
    one_line(run_capped("validate", "/dev/null"), "/dev/null:1:", "simulation")
    one_line(run_capped("validate", tmp_path), f"{tmp_path}: cannot read file")
    one_line(run_capped("validate", ""), ": cannot read file")
