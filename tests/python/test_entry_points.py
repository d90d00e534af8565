"""Bad arguments at every entry point: a clear error, never a crash, a hang
or an allocation without bound. A number of runs is bounded
(``airtcp.api.MAX_RUNS``, docs/sweeps.md#how-many-runs), a scenario file
is read to a bound (``MAX_SCENARIO_FILE_BYTES``, docs/scenario.md), a
``--dask`` address and ``--workers`` are checked before anything runs.
The CLI runs here under a 3 GB address-space limit and a timeout, so that
a regression fails fast (MemoryError, exit 1) instead of taking the
machine's memory."""

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
from airtcp.api import MAX_RUNS
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


# -- numbers of runs are bounded ------------------------------------------


def test_the_runs_limit_is_the_documented_one():
    """docs/sweeps.md#how-many-runs: the bound and its errors as shown."""
    assert MAX_RUNS == 1_000_000
    text = (REPO / "docs" / "sweeps.md").read_text()
    assert "at most 1,000,000 runs (`airtcp.api.MAX_RUNS`)" in " ".join(text.split())
    (block,) = [b for b in doc_blocks("docs/sweeps.md") if b.startswith("$ airtcp sweep examples/sweep.toml --runs 100000")]
    lines = block.splitlines()
    for command, expected in zip(lines[0::2], lines[1::2]):
        p = run_capped(*shlex.split(command)[2:], "--quiet", cwd=REPO)
        assert p.returncode == 2 and p.stderr.splitlines() == [expected], (command, p.stderr)


@pytest.mark.parametrize("runs", ["99999999999999999999", "1000000000", str(MAX_RUNS + 1)])
def test_reproduce_runs_beyond_the_limit(runs, tmp_path):
    # A 20-digit count ended in an OverflowError traceback (exit 1); 10^9
    # grew to 11.7 GB building the run list before anything was said.
    one_line(run_capped("reproduce", "kick", "--runs", runs, "--quiet", "--out", tmp_path / "o"), f"at most {MAX_RUNS:,} runs")
    assert not (tmp_path / "o").exists()


def test_reproduce_runs_that_make_too_many_cells_x_schemes(tmp_path):
    from airtcp.experiments import get

    exp = get("kick")
    combos = sum(exp.applicable(c, s.name) for c in exp.cells for s in exp.schemes)
    most = MAX_RUNS // combos
    line = one_line(
        run_capped("reproduce", "kick", "--runs", most + 1, "--quiet", "--out", tmp_path / "o"),
        f"{(most + 1) * combos:,} runs",
        f"at most {most:,} runs per cell and scheme",
    )
    assert line.startswith("airtcp: kick: ")
    with pytest.raises(ValueError, match=f"at most {most:,} runs per cell and scheme"):
        airtcp.experiments.reproduce("kick", runs=most + 1, out=tmp_path / "p", progress=False)
    with pytest.raises(ValueError, match="at most"):
        airtcp.experiments.reproduce("kick", runs=10**20, out=tmp_path / "p", progress=False)
    with pytest.raises(TypeError, match="runs must be an int"):
        airtcp.experiments.reproduce("kick", runs=2.5, out=tmp_path / "p", progress=False)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("runs", ["99999999999999999999", "1000000000", str(MAX_RUNS + 1)])
def test_run_runs_beyond_the_limit(runs, wireless, tmp_path):
    one_line(run_capped("run", wireless, "--runs", runs, "--quiet"), f"at most {MAX_RUNS:,} runs")
    one_line(
        run_capped("sweep", EXAMPLES / "sweep.toml", "--runs", runs, "--quiet", "--out", tmp_path / "o"),
        f"at most {MAX_RUNS:,} runs",
    )
    assert not (tmp_path / "o").exists()


def test_run_many_seeds_beyond_the_limit(wireless):
    for seeds in (range(10**12), itertools.count(1), range(MAX_RUNS + 1)):
        with pytest.raises(ValueError, match=f"more than {MAX_RUNS:,}"):
            airtcp.run_many(wireless, seeds=seeds, progress=False)


def test_run_many_workers_are_checked(wireless):
    for workers, error in ((2.5, TypeError), (True, TypeError), (0, ValueError), (-1, ValueError)):
        with pytest.raises(error, match="workers"):
            airtcp.run_many(wireless, seeds=[1, 2], workers=workers, progress=False)


SWEEP = """
[simulation]
duration = "1s"
seed = 1

[[link]]
a = "A"
b = "B"
rate = "1Mbps"
delay = "10ms"
a_to_b = {{ error = {{ kind = "bernoulli", per = 0.01 }} }}

[[flow]]
from = "A"
to = "B"
app = {{ kind = "bulk" }}

[sweep]
{runs}
[sweep.parameters]
{params}
"""


def test_a_sweep_of_too_many_points_is_refused_before_any_is_made(tmp_path):
    # Ten parameters of ten values: 10^10 points from a few lines, each
    # made into a scenario text before anything was said.
    # Ten flows, each parameter one flow's start time.
    params = "\n".join(
        f'p{i} = {{ path = "flow[{i}].start", values = [{", ".join(str(k) for k in range(10))}], unit = "ms" }}'
        for i in range(10)
    )
    flows = '[[flow]]\nfrom = "A"\nto = "B"\napp = { kind = "bulk" }\n' * 9
    path = tmp_path / "big-sweep.toml"
    path.write_text(SWEEP.format(runs="runs = 1", params=params).replace("[sweep]", flows + "\n[sweep]"))
    p = run_capped("sweep", path, "--quiet", "--out", tmp_path / "o", timeout=60)
    one_line(p, "sweep:", "10,000,000,000 points x 1 seeds", f"at most {MAX_RUNS:,} runs")
    with pytest.raises(airtcp.ScenarioError, match="10,000,000,000 points"):
        airtcp.sweep(path, out=tmp_path / "o", progress=False)
    assert not (tmp_path / "o").exists()


def test_sweep_seeds_and_runs_beyond_the_limit(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(SWEEP.format(runs="", params='per = { path = "link[0].a_to_b.error.per", values = [0.01, 0.02] }'))
    for kwargs in ({"seeds": range(10**12)}, {"seeds": itertools.count(1)}, {"runs": 10**20}, {"runs": MAX_RUNS + 1}):
        with pytest.raises(airtcp.ScenarioError, match=f"at most {MAX_RUNS:,} runs"):
            airtcp.sweep(path, out=tmp_path / "o", progress=False, **kwargs)
    # Within the seeds' bound but not the runs': 2 points x 600,000 seeds.
    with pytest.raises(airtcp.ScenarioError, match="2 points x 600,000 seeds = 1,200,000 runs"):
        airtcp.sweep(path, out=tmp_path / "o", progress=False, runs=600_000)
    assert not (tmp_path / "o").exists()


# -- Dask addresses and workers --------------------------------------------


@pytest.mark.parametrize("address", ["nonsense", "", "tcp://host", "udp://host:1", "tcp://127.0.0.1:99999"])
def test_a_dask_address_dask_cannot_take_is_one_line(address, tmp_path):
    pytest.importorskip("distributed")
    for cmd in (["sweep", EXAMPLES / "sweep.toml", "--runs", "1"], ["reproduce", "kick", "--runs", "1"]):
        p = run_capped(*cmd, "--quiet", "--out", tmp_path / "o", "--dask", address)
        one_line(p, f"airtcp: --dask {address!r}: expected 'local' or a scheduler address")
        assert not (tmp_path / "o").exists()
    with pytest.raises(ValueError, match="expected 'local' or a scheduler address"):
        airtcp.sweep(EXAMPLES / "sweep.toml", out=tmp_path / "o", dask=address, progress=False)


def test_local_cluster_workers_are_at_most_the_cores(tmp_path):
    pytest.importorskip("distributed")
    from airtcp._threads import default_workers

    n = default_workers() + 1
    for cmd in (["sweep", EXAMPLES / "sweep.toml", "--runs", "1"], ["reproduce", "kick", "--runs", "1"]):
        p = run_capped(*cmd, "--quiet", "--out", tmp_path / "o", "--dask", "local", "--workers", n)
        one_line(p, f"--workers {n} with --dask local: at most {n - 1}, the cores here")
        assert not (tmp_path / "o").exists()


@pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="needs a CPU affinity of two or more cores to narrow",
)
def test_all_cores_means_the_cores_this_process_may_run_on(tmp_path):
    """"Default: all cores" (threads, and the LocalCluster bound) counts the
    cores the process may run on, as taskset or a batch scheduler's cgroup
    sets them, not the machine's: pinned to one core, the default is one
    thread and a LocalCluster of two is refused."""
    one_core = {min(os.sched_getaffinity(0))}

    def pinned():
        _cap()
        os.sched_setaffinity(0, one_core)

    def run(*args):
        return subprocess.run(
            [sys.executable, *map(str, args)], capture_output=True, text=True, preexec_fn=pinned, timeout=120
        )

    p = run("-c", "from airtcp.campaign.execute import describe; print(describe(None, None))")
    assert (p.returncode, p.stdout) == (0, "1 thread\n"), p.stderr
    pytest.importorskip("distributed")
    sweep = ("-m", "airtcp", "sweep", EXAMPLES / "sweep.toml", "--runs", "1", "--quiet", "--out", tmp_path / "o")
    p = run(*sweep, "--dask", "local", "--workers", "2")
    one_line(p, "--workers 2 with --dask local: at most 1, the cores here")
    assert not (tmp_path / "o").exists()


def test_campaign_workers_are_checked(tmp_path):
    for workers, error in ((2.5, TypeError), (True, TypeError), (0, ValueError), (-1, ValueError)):
        with pytest.raises(error, match="workers"):
            airtcp.sweep(EXAMPLES / "sweep.toml", runs=1, out=tmp_path / "o", workers=workers, progress=False)
        with pytest.raises(error, match="workers"):
            airtcp.experiments.reproduce("kick", runs=1, out=tmp_path / "o", workers=workers, progress=False)
    assert not (tmp_path / "o").exists()


# -- the Python API's other arguments -------------------------------------


def test_a_seed_twice_is_refused(wireless, tmp_path):
    """Two runs of one seed are one run counted twice in every mean (a
    sweep refuses it: "a seed is listed twice"); with captures or traces
    both also wrote capture-...-seed1.pcapng at once, on two threads."""
    twice = r"^seeds: seed {} is listed twice: its runs would be identical, one run counted twice in every mean$"
    with pytest.raises(ValueError, match=twice.format(1)):
        airtcp.run_many(wireless, seeds=[1, 1], progress=False)
    with pytest.raises(ValueError, match=twice.format(7)):
        airtcp.run_many(wireless, seeds=(s % 3 + 7 for s in range(4)), workers=1, progress=False)
    with pytest.raises(ValueError, match=twice.format(1)):
        airtcp.run_many(wireless, seeds=[1, 2, 1], pcap="base_station<->mobile", out_dir=tmp_path, progress=False)
    with pytest.raises(ValueError, match=twice.format(2)):
        airtcp.run_many(wireless, seeds=[2, 2], trace=True, out_dir=tmp_path, progress=False)
    traced = wireless.read_text() + '\n[trace]\nfile = "t.parquet"\n'
    with pytest.raises(ValueError, match=twice.format(3)):
        airtcp.run_many(airtcp.Scenario(traced, "traced.toml"), seeds=[3, 3], out_dir=tmp_path, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_seeds_and_trace_names_of_the_wrong_type(wireless):
    with pytest.raises(TypeError, match="seeds must be a list .* not int"):
        airtcp.run_many(wireless, seeds=5, progress=False)
    with pytest.raises(TypeError, match="seeds must be a list .* not str"):
        airtcp.run_many(wireless, seeds="12", progress=False)
    with pytest.raises(TypeError, match="trace flows and links must be a name or a list of names, not int"):
        airtcp.run(wireless, trace={"flows": 5})


def test_summary_max_rows(wireless):
    r = airtcp.run(wireless)
    # -1 and 0 listed no flow and said "(the -1 busiest of 4 link directions)".
    for rows, error in ((-1, ValueError), (0, ValueError), (1.5, TypeError), ("3", TypeError), (True, TypeError)):
        with pytest.raises(error, match="max_rows"):
            r.summary(max_rows=rows)
    assert "(the 1 busiest of 4 link directions)" in r.summary(max_rows=1)
    assert r.summary(max_rows=None) == r.summary(max_rows=10**18)


def test_read_trace_of_what_is_not_a_trace(tmp_path):
    with pytest.raises(IsADirectoryError) as ei:
        airtcp.read_trace(tmp_path)
    assert ei.value.filename == str(tmp_path)
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"x": [1]}), tmp_path / "x.parquet")
    with pytest.raises(ValueError, match="x.parquet: not a per-packet trace of airtcp"):
        airtcp.read_trace(tmp_path / "x.parquet")


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_a_reproduction_parameter_that_is_not_finite(value, tmp_path):
    # --set rate_bps=NaN said only "airtcp: cannot convert float NaN to integer".
    p = run_capped("reproduce", "kick", "--runs", "1", "--quiet", "--out", tmp_path / "o", "--set", f"rate_bps={value}")
    one_line(p, "airtcp: kick: parameter rate_bps takes a finite number (like 64000")
    from airtcp.experiments import kick

    with pytest.raises(ValueError, match="parameter duration_s takes a finite number"):
        kick.EXPERIMENT.with_params(duration_s=float("nan"))


def test_bench_checks_its_run_file_first(tmp_path):
    # It was run after minutes of benchmarks, then failed in a traceback.
    for bad in ("/dev/null", "/dev/zero", tmp_path):
        p = run_capped("bench", "--quick", "--run-file", bad, timeout=60)
        one_line(p, f"{bad}")
        assert "running" not in p.stderr


def test_a_long_list_of_values_is_checked_in_linear_time(tmp_path):
    # Each value was compared with every other (list.index): 50,000
    # values took more than 5 minutes before the sweep was refused for
    # its size; now a few seconds.
    values = ", ".join(str(k) for k in range(1, 50_001))
    path = tmp_path / "long.toml"
    path.write_text(SWEEP.format(runs="runs = 100", params=f'd = {{ path = "link[0].delay", values = [{values}], unit = "us" }}'))
    p = run_capped("sweep", path, "--quiet", "--out", tmp_path / "o", timeout=60)
    one_line(p, "sweep: 50,000 points x 100 seeds = 5,000,000 runs")
    path.write_text(SWEEP.format(runs="runs = 100", params=f'd = {{ path = "link[0].delay", values = [{values}, 7], unit = "us" }}'))
    p = run_capped("sweep", path, "--quiet", "--out", tmp_path / "o", timeout=60)
    one_line(p, "sweep.parameters.d.values[50000]: 7 is listed twice")
