"""The user docs' examples run as written and print what the docs show:
README.md, docs/scenario.md and docs/capture.md; what docs/fuzzing.md says
of the fuzz targets, their files and the scripts/fuzz commands (a campaign
needs nightly and cargo-fuzz, so none runs here). Every example is read from
the doc's text (conftest.doc_blocks), so an edit to a doc is tested; the
outputs a doc shows (error lines, tshark's output, values in comments) are
compared with the program's, line for line.

Checked elsewhere: docs/sweeps.md (test_sweep.py::test_the_docs_page_runs;
its error lines here),
the README's first Python block (test_startup_threads.py), docs/results.md
(generated from the code; crates/airtcp-core/tests/generated_docs.rs).
docs/architecture.md has no runnable example. What is not run here is said
in the doc beside it (an HTML comment) and asserted below, never skipped
silently.
"""

import ast
import csv
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib

import matplotlib.image
import pytest

import airtcp
from airtcp.bench import same_columns
from conftest import EXAMPLES, REPO, doc_blocks, needs_tshark, run_cli


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """A directory like a checkout's root: the examples, nothing else; the
    current directory, as for a user typing the commands."""
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def sessions(block):
    """The (command, output lines) of a block showing a shell session:
    `$ COMMAND` and what it printed."""
    out = []
    for line in block.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        else:
            assert out, f"output before a command: {block}"
            out[-1][1].append(line)
    return out


def session_blocks(doc, command_prefix):
    blocks = [b for b in doc_blocks(doc) if b.startswith("$ " + command_prefix)]
    assert blocks, f"{doc}: no session of `{command_prefix}`"
    return blocks


def run_shell(command, cwd):
    """A command from a doc: airtcp as this interpreter's `python -m airtcp`,
    anything else (tshark, pipes) through bash."""
    if command.startswith("airtcp "):
        return run_cli(*shlex.split(command, comments=True)[1:], cwd=cwd)
    return subprocess.run(["bash", "-c", command], capture_output=True, text=True, cwd=cwd, timeout=120)


def printed_lines(p):
    # tshark warns on stderr when run as root; nothing else is left out.
    return [line for line in (p.stdout + p.stderr).splitlines() if "Running as user" not in line]


def matches(shown, printed):
    """The lines a doc shows are the lines printed, exactly; a line `...`
    stands for any lines, so the parts between them must appear in order."""
    parts = [[]]
    for line in shown:
        if line == "...":
            parts.append([])
        else:
            parts[-1].append(line)
    if len(parts) == 1:
        return shown == printed
    at = 0
    for k, part in enumerate(parts):
        if not part:
            continue
        if k == 0:
            if printed[: len(part)] != part:
                return False
            at = len(part)
            continue
        last = k == len(parts) - 1
        starts = [i for i in range(at, len(printed) - len(part) + 1) if printed[i : i + len(part)] == part]
        if last:
            starts = [i for i in starts if i + len(part) == len(printed)]
        if not starts:
            return False
        at = starts[0] + len(part)
    return True


def check_session(block, cwd, status):
    """Run each command of a session block; its output is the one shown."""
    for command, shown in sessions(block):
        p = run_shell(command, cwd)
        assert p.returncode == status, (command, p.stderr)
        printed = printed_lines(p)
        report = "\n".join([f"$ {command}", "shown:", *shown, "printed:", *printed])
        assert matches(shown, printed), report


def error_line(block):
    ((_, shown),) = sessions(block)
    assert len(shown) == 1
    return shown[0]


def code_lines(toml_text):
    """The lines of TOML text without comments and blank lines."""
    lines = (line.split("#", 1)[0].rstrip() for line in toml_text.splitlines())
    return [line for line in lines if line]


def flows_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


# What the tests run of each doc: a block added to a doc fails here until a
# test runs it or the doc says why none does.
BLOCKS = {
    "README.md": {"sh": 4, "toml": 2, "python": 2, "": 1},
    "docs/scenario.md": {"toml": 5, "": 6, "python": 0, "sh": 0},
    "docs/capture.md": {"sh": 1, "toml": 1, "python": 2, "": 8},
    "docs/fuzzing.md": {"sh": 1, "toml": 0, "python": 0, "": 0},
    # sweeps.md's other blocks: test_sweep.py::test_the_docs_page_runs
}


def test_every_example_of_the_docs_is_accounted_for():
    for doc, counts in BLOCKS.items():
        for lang, n in counts.items():
            assert len(doc_blocks(doc, lang)) == n, (doc, lang)


# README.md


def test_readme_quick_start_scenario_and_its_error(scratch):
    readme = (REPO / "README.md").read_text()
    install, suite = doc_blocks("README.md", "sh")[0].splitlines()
    # `pip install .` and `./scripts/test` are what runs this test.
    pip, command = install.split(" && ")
    assert (pip, suite) == ("pip install .", "./scripts/test")
    p = run_shell(command, scratch)
    assert p.returncode == 0, p.stderr
    # "prints per-flow goodput, retransmissions and timeouts"
    header = p.stdout.splitlines()[2].split()
    assert header[:3] == ["flow", "path", "tcp"] and {"goodput", "retransmits", "timeouts"} <= set(header)

    scenario, compact = doc_blocks("README.md", "toml")
    (scratch / "scenario.toml").write_text(scenario)
    p = run_cli("run", "scenario.toml", cwd=scratch)
    assert p.returncode == 0, p.stderr
    assert re.search(r"^flow0 +S1->D1 +newreno\+sack ", p.stdout, re.M), p.stdout
    # The error: the file above with `delay = "2"` instead of "2ms".
    assert 'with `delay = "2"` instead of `"2ms"` in\nthe file above, saved as `bad.toml`' in readme
    assert scenario.count('delay = "2ms"') == 1
    (scratch / "bad.toml").write_text(scenario.replace('delay = "2ms"', 'delay = "2"'))
    (block,) = session_blocks("README.md", "airtcp validate bad.toml")
    check_session(block, scratch, status=2)
    with pytest.raises(airtcp.ScenarioError) as e:
        airtcp.load("bad.toml")
    assert str(e.value) == error_line(block)

    # The compact snippet is an excerpt of examples/dumbbell-10k.toml, in order.
    example = (EXAMPLES / "dumbbell-10k.toml").read_text()
    lines = int(re.search(r"a\s+10,000-flow dumbbell is (\d+) lines", readme).group(1))
    assert lines == len(example.splitlines())
    rest = iter(code_lines(example))
    assert all(line in rest for line in code_lines(compact)), "not in examples/dumbbell-10k.toml, in this order"


# The README's CLI lines this file does not run, and what runs them instead
# (said in the README beside the block).
CLI_ELSEWHERE = {
    "airtcp sweep examples/sweep.toml --dask local": "test_sweep_dask.py",
    "airtcp bench": "test_cli.py::test_bench_quick (airtcp bench --quick)",
}


def test_readme_cli_block(scratch):
    block = doc_blocks("README.md", "sh")[1]
    readme = (REPO / "README.md").read_text()
    ran = {}
    for line in block.splitlines():
        command = line.split("#", 1)[0].strip()
        if command in CLI_ELSEWHERE:
            assert CLI_ELSEWHERE[command].split("::")[0] in readme, command
            continue
        p = run_shell(command, scratch)
        assert p.returncode == 0, (command, p.stderr)
        ran[command] = p.stdout
    assert len(ran) == 4 and len(ran) + len(CLI_ELSEWHERE) == len(block.splitlines())
    runs = ran["airtcp run examples/wireless.toml --runs 20 --out results --format parquet"]
    assert runs.startswith("20 seeds (1..20)")
    assert {f.name for f in (scratch / "results").iterdir()} == {
        "flows.parquet", "links.parquet", "transfers.parquet", "series.parquet", "agents.parquet", "run.json"
    }
    assert ran["airtcp validate examples/dumbbell.toml"].startswith("examples/dumbbell.toml: ok (")
    sweep = ran["airtcp sweep examples/sweep.toml"]
    assert "goodput Mb/s [95% CI]" in sweep and "wrote airtcp-out/sweep/summary.csv" in sweep
    # The table docs/sweeps.md shows for the same command (its last line
    # has the wall time and the number of threads of the machine).
    (table,) = [b for b in doc_blocks("docs/sweeps.md") if b.startswith("means over seeds")]
    *rows, timing = [line for line in table.splitlines() if line]
    assert timing.startswith("120 runs (120 simulated on ")
    assert matches(rows + ["..."], sweep.splitlines())
    assert "done: 120 of 120 runs" in ran["airtcp sweep --status airtcp-out/sweep"]
    # docs/sweeps.md's fewer seeds in the same directory: a summary of
    # those seeds alone, and the runs it leaves out counted.
    (session,) = [b for b in doc_blocks("docs/sweeps.md") if b.startswith("$ airtcp sweep examples/sweep.toml --runs 3")]
    command, *shown = session.splitlines()
    p = run_shell(command[2:], scratch)
    assert p.returncode == 0, p.stderr
    printed = p.stdout.splitlines()
    # The timing line: the machine's threads and seconds aside, as shown.
    (k,) = [i for i, line in enumerate(shown) if line.startswith("36 runs (0 simulated on ")]
    timing = re.escape(shown[k]).replace("2\\ threads", ".+").replace("0\\.2\\ s", "[0-9.]+ s")
    (j,) = [i for i, line in enumerate(printed) if re.fullmatch(timing, line)]
    assert matches(shown[:k] + ["timing"] + shown[k + 1 :], printed[:j] + ["timing"] + printed[j + 1 :])
    status = run_shell("airtcp sweep --status airtcp-out/sweep", scratch).stdout
    assert "done: 36 of 36 runs" in status and "also stored: 84 runs of points or seeds outside" in status
    assert "also stored: 84 runs of points or seeds outside" in (REPO / "docs" / "sweeps.md").read_text()


def test_readme_reproduce_block_lists_the_reproductions(scratch):
    block = doc_blocks("README.md", "sh")[3]
    first, *others = [line.split("#", 1)[0].strip() for line in block.splitlines()]
    p = run_shell(first, scratch)
    assert p.returncode == 0, p.stderr
    names = re.findall(r"^  (\w+) ", p.stdout, re.M)
    assert names[:1] == ["kick"] and "matrix" in names
    # Runs of the reproductions (seconds each) are in their own tests.
    assert all(o.startswith("airtcp reproduce kick") for o in others)
    assert "test_reproduce.py" in (REPO / "README.md").read_text()


def test_readme_looking_at_packets(scratch):
    command, _ = doc_blocks("README.md", "sh")[2].splitlines()
    # The walk-through's command (docs/capture.md), tested there.
    assert command == doc_blocks("docs/capture.md", "sh")[0].strip()
    # The Python block, after the first (which imports airtcp).
    code = "import airtcp\n" + doc_blocks("README.md", "python")[1]
    code += "\nprint(len(r.trace), 'drop' in set(r.trace.event), *r.series_wide('cwnd_bytes').shape)\n"
    p = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=scratch,
        timeout=120,
        env=dict(os.environ, MPLBACKEND="Agg"),
    )
    assert p.returncode == 0, p.stderr
    rows, drops, samples, columns = p.stdout.split()
    assert int(rows) > 0 and drops == "True"
    # "one column per flow, one row per 100 ms" of the run (and t = 0).
    interval_ms = int(re.search(r'"interval": "(\d+)ms"', code).group(1))
    duration_s = int(tomllib.loads((EXAMPLES / "wireless.toml").read_text())["simulation"]["duration"][:-1])
    assert (int(samples), int(columns)) == (duration_s * 1000 // interval_ms + 1, 1)
    assert (scratch / "capture-base_station--mobile.pcapng").exists()


def png_size(data):
    """(width, height) of PNG bytes; AssertionError if they are not a PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", data[:16]
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_readme_figure_script_draws_the_figure(tmp_path):
    """README: "(`python scripts/readme_plot.py` draws it.)", the figure
    after the Python block. The command as written, with an output path
    the script takes so that the checked-in image is left alone."""
    readme = (REPO / "README.md").read_text()
    figure = r"!\[[^\]]*\]\((docs/img/[\w.-]+\.png)\)\n\n\(`(python scripts/readme_plot\.py)` draws it\.\)"
    m = re.search(figure, readme)
    assert m, "the README's figure and the command that draws it"
    image, command = REPO / m.group(1), shlex.split(m.group(2))
    before = image.read_bytes()
    out = tmp_path / "figure.png"
    p = subprocess.run(
        [sys.executable, *command[1:], str(out)], capture_output=True, text=True, cwd=REPO, timeout=120
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout == f"wrote {out}\n"
    drawn = out.read_bytes()
    # A PNG of the size of the one the README shows, with data in both
    # panels: coloured pixels (the curves and markers; text and axes are
    # grey), at least a line across the figure's width in each half.
    width, height = png_size(drawn)
    assert (width, height) == png_size(before)
    rgb = matplotlib.image.imread(out)[..., :3]
    coloured = (rgb.max(axis=2) - rgb.min(axis=2)) > 0.2
    top, bottom = coloured[: height // 2].sum(), coloured[height // 2 :].sum()
    assert min(top, bottom) > width, (top, bottom)
    assert image.read_bytes() == before


@needs_tshark
def test_readme_expert_counts_the_retransmissions(walkthrough):
    out, _ = walkthrough
    _, expert = doc_blocks("README.md", "sh")[2].splitlines()
    shown = int(re.search(r"# (\d+) retransmissions, as airtcp counts", expert).group(1))
    p = run_shell(expert.split("#")[0], out)
    assert p.returncode == 0, p.stderr
    n = re.search(r"^ +(\d+) +Sequence +TCP +This frame is a \(suspected\) retransmission$", p.stdout, re.M)
    (flow,) = flows_csv(out / "results" / "flows.csv")
    assert int(n.group(1)) == shown == int(flow["retransmitted_segments"])


# docs/scenario.md


def named_toml_blocks(doc):
    """TOML blocks that start with `# NAME.toml`: the files a doc's sessions use."""
    return {b.split("\n", 1)[0][2:]: b for b in doc_blocks(doc, "toml") if re.match(r"# [\w-]+\.toml\n", b)}


def test_scenario_file_size_limit(scratch):
    (block,) = session_blocks("docs/scenario.md", "airtcp validate /dev/zero")
    check_session(block, scratch, status=2)


def test_scenario_memory_budget_errors(scratch):
    files = named_toml_blocks("docs/scenario.md")
    assert set(files) == {"big.toml", "flood.toml"}
    for name, text in files.items():
        (scratch / name).write_text(text)
    (big,) = session_blocks("docs/scenario.md", "airtcp validate big.toml")
    (flood,) = session_blocks("docs/scenario.md", "airtcp run flood.toml")
    check_session(big, scratch, status=2)
    check_session(flood, scratch, status=2)
    # Python: the estimate when loading, the budget while running.
    with pytest.raises(airtcp.ScenarioError) as e:
        airtcp.load("big.toml")
    assert str(e.value) == error_line(big)
    sc = airtcp.load("flood.toml")
    with pytest.raises(airtcp.ScenarioError) as e:
        airtcp.run(sc)
    assert str(e.value) == error_line(flood)


def test_scenario_many_runs_budget_error(scratch):
    """The page's `--runs 1000` session prints exactly its line, at once
    (no run starts), and run_many raises the same error from Python."""
    (block,) = session_blocks("docs/scenario.md", "airtcp run examples/dumbbell-10k.toml --runs")
    check_session(block, scratch, status=2)
    with pytest.raises(airtcp.ScenarioError) as e:
        airtcp.run_many("examples/dumbbell-10k.toml", seeds=range(1000), progress=False)
    assert str(e.value) == error_line(block)


def test_scenario_count_error_and_the_10k_dumbbell(scratch):
    text = (REPO / "docs" / "scenario.md").read_text()
    count = re.search(r"with `count = (\d+)` in the flow table of\n`examples/dumbbell-10k.toml`", text).group(1)
    example = (EXAMPLES / "dumbbell-10k.toml").read_text()
    head, flow = example.split("[[flow]]")
    (scratch / "dumbbell-10k.toml").write_text(head + "[[flow]]" + flow.replace("count = 10000", f"count = {count}"))
    (block,) = session_blocks("docs/scenario.md", "airtcp validate dumbbell-10k.toml")
    check_session(block, scratch, status=2)
    # "A 10,000-flow dumbbell (`examples/dumbbell-10k.toml`)": the block is
    # that file (the defaults it leaves out are the file's values).
    (block,) = [b for b in doc_blocks("docs/scenario.md", "toml") if "count = 10000" in b]
    assert "A 10,000-flow dumbbell (`examples/dumbbell-10k.toml`):\n\n```toml\n" + block in text
    shown = airtcp.run(tomllib.loads(block))
    assert len(shown.columns["flows"]["name"]) == 10000
    assert same_columns(shown.columns, airtcp.run(EXAMPLES / "dumbbell-10k.toml").columns)


def test_scenario_hystart_block():
    """The HyStart++ example runs, and without `slow_start` it is the RFC
    5681 baseline the doc says it is: the same run but for slow start."""
    (block,) = [b for b in doc_blocks("docs/scenario.md", "toml") if 'slow_start = "hystart++"' in b]
    hystart = airtcp.run(tomllib.loads(block)).columns["flows"]
    baseline = airtcp.run(tomllib.loads(block.replace(', slow_start = "hystart++"', ""))).columns["flows"]
    assert list(hystart["variant"]) == ["sack+hystart++/cubic"]
    assert list(baseline["variant"]) == ["sack/cubic"]
    assert list(hystart["delivered_bytes"]) != list(baseline["delivered_bytes"])


def test_scenario_sweep_block_on_the_wireless_example(scratch):
    (block,) = [b for b in doc_blocks("docs/scenario.md", "toml") if b.startswith("[sweep]")]
    (scratch / "s.toml").write_text((EXAMPLES / "wireless.toml").read_text() + "\n" + block)
    p = run_cli("validate", "s.toml", cwd=scratch)
    assert p.returncode == 0, p.stderr
    assert "sweep: 9 points (per: 3 x tcp: 3) x 10 seeds = 90 runs, every point valid" in p.stdout


# docs/sweeps.md (its commands and Python blocks: test_sweep.py)

_PER = "0.03, 0.1]"
_TCP = 'tcp = { path = "flow[*].tcp.variant", values = ["reno", "newreno", "sack"] }'
# The edits of examples/sweep.toml behind the doc's error lines, in order.
SWEEP_MISTAKES = [
    (_PER, "0.03, 1.5]"),
    ('"flow[*].tcp.variant"', '"flow[*].tcp.varient"'),
    ('link["base_station->mobile"]', 'link["mobile->base_station"]'),
    ('values = ["reno", "newreno", "sack"]', "values = []"),
    (_TCP, _TCP + '\nrto = { path = "flow[*].tcp.timeout_response", values = ["standard", "dclor"] }'),
    (_TCP, _TCP + "\nhost = { path = 'link[\"base_station->mobile\"].b', values = [\"mobile\", \"phone\"] }"),
    (_TCP, _TCP + '\nto = { path = "flow[*].to", values = ["mobile"] }'),
]


def test_sweeps_error_lines(scratch):
    """The doc's mistakes in a sweep, each one line, exactly; CLI exit 2,
    Python ScenarioError."""
    (block,) = [b for b in doc_blocks("docs/sweeps.md") if b.startswith("sweep.toml:")]
    shown = block.splitlines()
    assert len(shown) == len(SWEEP_MISTAKES)
    example = (EXAMPLES / "sweep.toml").read_text()
    for (old, new), line in zip(SWEEP_MISTAKES, shown):
        assert example.count(old) == 1, old
        (scratch / "sweep.toml").write_text(example.replace(old, new))
        p = run_cli("validate", "sweep.toml", cwd=scratch)
        assert (p.returncode, p.stdout, p.stderr) == (2, "", line + "\n")
        with pytest.raises(airtcp.ScenarioError) as e:
            airtcp.sweep("sweep.toml", out="out")
        assert str(e.value) == line


# docs/capture.md


@pytest.fixture(scope="module")
def walkthrough(tmp_path_factory):
    """The walk-through's command, run as written."""
    out = tmp_path_factory.mktemp("walkthrough")
    shutil.copytree(EXAMPLES, out / "examples")
    (command,) = doc_blocks("docs/capture.md", "sh")[0].strip().splitlines()
    p = run_shell(command, out)
    assert p.returncode == 0, p.stderr
    return out, p.stdout


def test_capture_walkthrough_prints_and_counts(walkthrough):
    out, stdout = walkthrough
    text = (REPO / "docs" / "capture.md").read_text()
    (wrote,) = [b for b in doc_blocks("docs/capture.md") if b.startswith("wrote ")]
    assert wrote in stdout
    (flow,) = flows_csv(out / "results" / "flows.csv")
    shown = re.search(r"and `results/flows.csv` has (.*?)\. Open the capture", text, re.S).group(1)
    counts = dict(re.findall(r"`(\w+) = (\d+)`", shown))
    assert len(counts) == 3 and all(flow[k] == v for k, v in counts.items()), (counts, flow)


@needs_tshark
def test_capture_tshark_sessions(walkthrough):
    out, _ = walkthrough
    blocks = session_blocks("docs/capture.md", "tshark ")
    assert len(blocks) == 4
    for block in blocks:
        check_session(block, out, status=0)
    # The two commands in the text: checksums, and the expert's findings.
    text = (REPO / "docs" / "capture.md").read_text()
    capture = "results/capture-base_station--mobile.pcapng"
    checksums, expert = re.findall(r"`(tshark -r FILE [^`]*)`", text)
    (wrote,) = [b for b in doc_blocks("docs/capture.md") if b.startswith("wrote ")]
    packets = int(re.match(r"wrote ([\d,]+) packets to ", wrote).group(1).replace(",", ""))
    p = run_shell(checksums.replace("FILE", capture), out)
    assert p.returncode == 0 and len(p.stdout.splitlines()) == packets
    assert "incorrect" not in p.stdout.lower() and "bad" not in p.stdout.lower()
    p = run_shell(expert.replace("FILE", capture), out)
    assert p.returncode == 0 and "(suspected) retransmission" in p.stdout
    for absent in ("Previous segment not captured", "ACKed segment that wasn't captured", "Zero window"):
        assert absent.lower() not in p.stdout.lower(), absent


def test_capture_python_blocks(scratch):
    """Both blocks as written, in one interpreter; an expression with a
    comment shows its value, which must be in the value's repr."""
    first, second = doc_blocks("docs/capture.md", "python")
    shown = []
    for line in first.splitlines():
        m = re.fullmatch(r"(\S.*?)\s+# (.*)", line)
        if m:
            try:
                ast.parse(m.group(1), mode="eval")
            except SyntaxError:
                continue  # an assignment: its comment is prose
            shown.append(m.groups())
    assert [e for e, _ in shown] == ["r.captures", 't[t.event == "drop"].groupby("cause", observed=True).size()']
    code = first + second + "".join(f"\nprint(repr({e}), end='\\x00')" for e, _ in shown)
    code += "\nprint(len(lost), one.event.iloc[-1], one.cause.iloc[-1], len(rtx))"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=scratch, timeout=120)
    assert p.returncode == 0, p.stderr
    *values, last = p.stdout.split("\x00")
    for (expr, comment), value in zip(shown, values):
        assert comment in value, (expr, comment, value)
    # The first lost segment's life ends in its channel drop; 72 losses and
    # 72 retransmissions, as the walk-through counts.
    lost, event, cause, rtx = last.split()
    assert (event, cause) == ("drop", "channel")
    channel = int(re.search(r"channel +(\d+)", shown[1][1]).group(1))
    assert int(lost) == int(rtx) == channel


def test_capture_scenario_block_and_unknown_point(scratch):
    (block,) = doc_blocks("docs/capture.md", "toml")
    wireless = (EXAMPLES / "wireless.toml").read_text()
    links = wireless[: wireless.index("[[flow]]")]  # the block brings its own flow
    (scratch / "s.toml").write_text(links + block)
    p = run_cli("run", "s.toml", "--out", "out", cwd=scratch)
    assert p.returncode == 0, p.stderr
    files = re.findall(r'^file = "([^"]+)"', block, re.M)
    assert files == ["wireless.pcapng", "trace.parquet"]
    assert all((scratch / "out" / f).stat().st_size > 0 for f in files)
    # flows = ["flow0"], links = ["base_station->mobile"]: only that flow's
    # events on that link direction.
    t = airtcp.read_trace(scratch / "out" / "trace.parquet")
    assert set(t.flow) == {"flow0"} and set(t.link) == {"base_station->mobile"}
    (block,) = session_blocks("docs/capture.md", "airtcp run examples/wireless.toml --pcap")
    check_session(block, scratch, status=2)
    with pytest.raises(airtcp.ScenarioError) as e:
        airtcp.run("examples/wireless.toml", pcap="R->D")
    assert str(e.value) == error_line(block)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_capture_ctrl_c_removes_the_files_of_the_runs_it_stopped_midway(scratch):
    """The session of docs/capture.md's "A run that does not reach its
    end", its command as written, Ctrl-C (a real SIGINT) once two runs
    have finished and another is midway, its capture and trace open (held
    there until the SIGINT is sent; tests/python/ctrl_c_after_two_runs.py):
    the runs that finished keep their files, listed in run.json; every run
    that started and did not finish leaves none (a truncated capture would
    pass for a whole run's); stderr is the line shown, with this run's
    counts; exit 130."""
    (block,) = session_blocks("docs/capture.md", "airtcp run examples/wireless.toml --runs")
    ((command, (ctrl_c, shown)),) = sessions(block)
    assert ctrl_c == "^C"
    noted = scratch / "noted"
    p = subprocess.run(
        [sys.executable, REPO / "tests" / "python" / "ctrl_c_after_two_runs.py", noted, *shlex.split(command)[1:]],
        capture_output=True,
        text=True,
        timeout=300,
    )
    finished = sorted(int(s) for s in (scratch / "noted.all").read_text().split())
    midway = [int(s) for s in (scratch / "noted.midway").read_text().split()]
    # Every run started made its files before simulating.
    stopped = sorted(int(s) for s in (scratch / "noted.started").read_text().split() if int(s) not in finished)
    out = scratch / "results"
    meta = json.loads((out / "run.json").read_text())
    assert p.returncode == 130, p.stderr
    assert set(midway) - set(finished) and meta["seeds"] == finished and len(finished) < 20
    # Named relative to the output directory, as the tables are, each with its seed.
    captures = [c["file"] for c in meta["captures"]]
    traces = [t["file"] for t in meta["traces"]]
    assert captures == [f"capture-base_station--mobile-seed{s}.pcapng" for s in finished]
    assert traces == [f"trace-seed{s}.parquet" for s in finished]
    assert [c["seed"] for c in meta["captures"]] == [t["seed"] for t in meta["traces"]] == finished
    tables = {f"{t}.csv" for t in ("flows", "links", "transfers", "series", "agents")}
    assert sorted(set(os.listdir(out)) - tables - {"run.json"}) == sorted(captures + traces)

    def counted(line):
        line = re.sub(r"; \d+ of 20 runs finished;", "; F of 20 runs finished;", line)
        return re.sub(r" of (1 run|\d+ runs) stopped midway", " of S runs stopped midway", line)

    assert counted(p.stderr) == counted(shown) + "\n"
    assert f"; {len(finished)} of 20 runs finished;" in p.stderr
    n = len(stopped)
    assert f" of {n} run{'s' if n != 1 else ''} stopped midway were removed\n" in p.stderr


def test_capture_file_that_cannot_be_created(scratch):
    (block,) = session_blocks("docs/capture.md", "airtcp run examples/wireless.toml --trace")
    check_session(block, scratch, status=2)
    ((command, _),) = sessions(block)
    path = shlex.split(command)[-1]
    simulated = []
    with pytest.raises(FileNotFoundError) as e:
        airtcp.run("examples/wireless.toml", trace=path, progress=simulated.append)
    assert f"airtcp: {e.value.filename}: {e.value.strerror}" == error_line(block)
    assert simulated == []  # "before anything is simulated"


# docs/fuzzing.md: no campaign (nightly and cargo-fuzz); what the doc says
# of the targets, their files, the checked-in corpus and the commands.

FUZZING = "docs/fuzzing.md"


def fuzz_targets():
    """The targets of the doc's table (its rows start with the name)."""
    return re.findall(r"^\| `(\w+)` \| ", (REPO / FUZZING).read_text(), re.M)


def test_fuzzing_targets_files_and_corpus():
    text = (REPO / FUZZING).read_text()
    targets = fuzz_targets()
    number = re.match(r"(\w+) \[cargo-fuzz\]", text.split("\n\n")[1]).group(1)
    assert len(targets) == ["One", "Two", "Three", "Four"].index(number) + 1, f"{number} targets: {targets}"
    # Each is a file of fuzz/fuzz_targets/ and a [[bin]] of fuzz/Cargo.toml,
    # and there are no others.
    assert sorted(f.stem for f in (REPO / "fuzz" / "fuzz_targets").glob("*.rs")) == sorted(targets)
    bins = tomllib.loads((REPO / "fuzz" / "Cargo.toml").read_text())["bin"]
    assert {b["name"]: b["path"] for b in bins} == {t: f"fuzz_targets/{t}.rs" for t in targets}
    # "The fuzz targets include that file [the harnesses], and so does
    # crates/airtcp-core/tests/fuzz_corpus.rs", which replays each corpus.
    harness = "crates/airtcp-core/tests/fuzz_harness/mod.rs"
    replay = (REPO / "crates/airtcp-core/tests/fuzz_corpus.rs").read_text()
    assert "mod fuzz_harness;" in replay
    for t in targets:
        source = (REPO / "fuzz" / "fuzz_targets" / f"{t}.rs").read_text()
        assert f'#[path = "../../{harness}"]\nmod fuzz_harness;' in source, t
        assert f'"{t}"' in replay, f"fuzz_corpus.rs does not replay fuzz/corpus/{t}/"
    # Every path the doc names exists, for each target where it says
    # <target>, or is a directory of a campaign's output, which git ignores.
    for named in re.findall(r"`([^`\s]*/[^`\s]*)`", text):
        for path in [named.replace("<target>", t) for t in targets] if "<target>" in named else [named]:
            if not (REPO / path).exists():
                ignored = subprocess.run(["git", "check-ignore", "-q", path], cwd=REPO).returncode == 0
                assert ignored, f"{FUZZING} names {path}: neither in the checkout nor ignored by git"
    # The checked-in corpus: its inputs as counted in the doc, and the
    # inputs of fixed findings it names.
    corpus = {t: sorted((REPO / "fuzz" / "corpus" / t).iterdir()) for t in targets}
    parts = r"(?:: (\d+) by set cover,\s+(\d+) hand-written seeds, (\d+) regressions)?"
    counted = re.findall(r"`(\w+)` ([\d,]+) inputs \((\d+) KB" + parts + r"\)", text)
    assert sorted(c[0] for c in counted) == sorted(targets)
    for t, n, kb, cover, seeds, regressions in counted:
        files = corpus[t]
        assert len(files) == int(n.replace(",", "")) > 0, t
        assert round(sum(f.stat().st_size for f in files) / 1000) == int(kb), t
        if cover:
            named = [f.name.split("-")[0] for f in files if "-" in f.name]
            fixed = named.count("crash") + named.count("regression")
            assert (named.count("seed"), fixed) == (int(seeds), int(regressions)), t
            assert int(cover) + int(seeds) + int(regressions) == len(files)
    for name in re.findall(r"`((?:seed|crash|regression)-[\w-]+)`", text):
        assert any(name in {f.name for f in files} for files in corpus.values()), f"{name} is not in fuzz/corpus/"


def fuzz_commands():
    """The doc's scripts/fuzz commands: its ```sh block and those in its text."""
    text = (REPO / FUZZING).read_text()
    (block,) = doc_blocks(FUZZING, "sh")
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines()]
    commands += re.findall(r"`(scripts/fuzz [^`]+)`", text)
    return [c.replace("<target>", t) for c in commands for t in (fuzz_targets() if "<target>" in c else [""])]


def run_fuzz_script(command, tmp_path):
    """A scripts/fuzz command with a `cargo` that only logs its arguments and
    fails: what the script asks of cargo, and nothing installed or built."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    log = tmp_path / "cargo.log"
    log.write_text("")
    (bin_dir / "cargo").write_text(f'#!/bin/sh\necho "$*" >> {shlex.quote(str(log))}\nexit 1\n')
    (bin_dir / "cargo").chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    argv = shlex.split(command)
    p = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, env=env, timeout=30)
    return p, log.read_text().splitlines()


def test_fuzzing_commands_name_what_scripts_fuzz_accepts(tmp_path):
    commands = fuzz_commands()
    assert len(commands) == 4 + 3 + 22, commands  # the block, the <target> form per target, the results table
    for command in commands:
        argv = shlex.split(command)
        assert argv[0] == "scripts/fuzz", command
        if argv[1] == "cmin":
            assert len(argv) == 3 and argv[2] in fuzz_targets(), command
        else:
            assert argv[1] in fuzz_targets() and argv[2].isdigit(), command
            assert all(a.startswith("-") for a in argv[3:]), f"libFuzzer flags: {command}"
        # scripts/fuzz takes it: past its checks, it looks for cargo-fuzz
        # (and fails here, at installing it with this cargo).
        p, cargo = run_fuzz_script(command, tmp_path)
        assert cargo[:1] == ["fuzz --version"], (command, p.stderr)


@pytest.mark.parametrize(
    "args, named",
    [
        ("no_such_target 1", "'no_such_target'"),
        ("cmin no_such_target", "'no_such_target'"),
        ("scenario_loader lots", "'lots'"),
        ("cmin", "usage: scripts/fuzz "),
        ("", "usage: scripts/fuzz "),
    ],
)
def test_fuzzing_script_rejects_a_mistyped_command_at_once(tmp_path, args, named):
    """A bad target or number of runs: one line naming it, exit 2, before
    cargo is asked for anything (cargo-fuzz is installed if missing)."""
    p, cargo = run_fuzz_script(f"scripts/fuzz {args}", tmp_path)
    assert (p.returncode, p.stdout, cargo) == (2, "", []), p.stderr
    assert len(p.stderr.splitlines()) == 1 and named in p.stderr, p.stderr
