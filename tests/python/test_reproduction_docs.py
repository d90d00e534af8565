"""The reproduction pages quote the program: each block of
docs/reproductions/*.md marked ``<!-- output of: airtcp reproduce NAME
[--set PARAM=VALUE ...] (...) -->`` is, line for line, in what that command
writes now (tables.txt and report.md). Users cite these pages, so a change
to the simulator that moves a reported number fails here until the page
says the new one.

Ten commands (the six pages' default runs and the four sensitivity runs
whose output the pages show) take about six minutes on 2 cores, each run
once for the module. (The matrix page's prose quotes cells of its marked
block; the heatmap it shows is drawn by the same run. Its two tables of
SACK rows against themselves are checked against its recipe, run on the
default run and each sensitivity run, below: one more run of the matrix,
about a minute; its probe ablation's recipe runs as written, under a
second.)"""

import re
import shlex
import textwrap

import numpy as np
import pytest
from scipy import stats

from conftest import REPO, run_cli

PAGES = REPO / "docs" / "reproductions"
MARK = re.compile(r"<!-- output of: airtcp reproduce ([^()]+?) \(tests/python/test_reproduction_docs\.py\) -->")


def marked_blocks() -> dict[str, list[tuple[str, list[str]]]]:
    """{command arguments: [(page:line, the block's non-blank lines)]}."""
    found: dict[str, list[tuple[str, list[str]]]] = {}
    for page in sorted(PAGES.glob("*.md")):
        lines = page.read_text().splitlines()
        for i, line in enumerate(lines):
            m = MARK.fullmatch(line.strip())
            if m is None:
                assert "output of:" not in line, f"{page.name}:{i + 1}: a mark this test cannot read"
                continue
            assert lines[i + 1] == "```", f"{page.name}:{i + 2}: a marked block starts right after its mark"
            assert shlex.split(m.group(1))[0] == page.stem, f"{page.name}:{i + 1} marks another page's output"
            end = lines.index("```", i + 2)
            block = [text.rstrip() for text in lines[i + 2 : end] if text.strip()]
            found.setdefault(m.group(1), []).append((f"{page.name}:{i + 1}", block))
    return found


BLOCKS = marked_blocks()


def test_every_reproduction_page_marks_its_default_output():
    pages = {p.stem for p in PAGES.glob("*.md")}
    assert pages <= set(BLOCKS), pages - set(BLOCKS)


@pytest.fixture(scope="module")
def reproduce(tmp_path_factory):
    """``reproduce(command)``: the output directory of ``airtcp reproduce
    COMMAND``, run once for this module (the matrix's runs serve both its
    marked blocks and its recipes below)."""
    done = {}

    def out(command: str):
        if command not in done:
            d = tmp_path_factory.mktemp("reproduce")
            r = run_cli("reproduce", *shlex.split(command), "--out", d, "--quiet", timeout=900)
            assert r.returncode == 0, r.stderr
            done[command] = d
        return done[command]

    return out


@pytest.mark.parametrize("command", sorted(BLOCKS))
def test_the_page_quotes_what_the_command_writes(reproduce, command):
    out = reproduce(command)
    written = set()
    for f in ("tables.txt", "report.md"):  # the matrix writes no tables.txt
        if (out / f).exists():
            written |= {line.rstrip() for line in (out / f).read_text().splitlines()}
    assert written, f"airtcp reproduce {command} wrote neither tables.txt nor report.md"
    for where, block in BLOCKS[command]:
        missing = [line for line in block if line not in written]
        assert not missing, f"{where} quotes lines `airtcp reproduce {command}` no longer writes: {missing[:3]}"


MATRIX_ENVIRONMENTS = {
    "Kick's uplink": "kick",
    "WMECN's LAN": "wmecn",
    "DCLOR's path": "dclor",
    "Threshold's GEO link": "threshold",
    "G-Snoop's path": "gsnoop",
}
MATRIX_SCHEMES = {
    "SACK": "sack",
    "CUBIC+SACK": "cubic_sack",
    "CUBIC+RACK-TLP": "cubic_rack",
    "Eifel": "eifel",
    "F-RTO": "frto",
    "DCLOR": "dclor",
}


def matrix_section(heading: str) -> str:
    text = (PAGES / "matrix.md").read_text()
    start = text.index(f"## {heading}")
    return text[start : text.index("\n## ", start)]


def paired_sack_rows(reproduce, capsys, sensitivity: str) -> dict:
    """What the PRR section's recipe prints for the default matrix run and
    ``airtcp reproduce matrix --set SENSITIVITY``: {(env, scheme): [off,
    on, difference, low, high, timeouts off, timeouts on]}."""
    section = matrix_section("Sensitivity: Proportional Rate Reduction")
    recipe = section[section.index("```python\n", section.index("The table's recipe")) + 10 :]
    recipe = recipe[: recipe.index("```")]
    paths = {
        "airtcp-out/matrix/runs.parquet": reproduce("matrix") / "runs.parquet",
        "airtcp-out/matrix-prr/runs.parquet": reproduce(f"matrix --set {sensitivity}") / "runs.parquet",
    }
    for name, path in paths.items():
        assert f'"{name}"' in recipe, name
        recipe = recipe.replace(f'"{name}"', repr(str(path)))
    capsys.readouterr()
    exec(compile(recipe, "matrix.md (PRR recipe)", "exec"), {})
    printed = {}
    for line in capsys.readouterr().out.splitlines():
        env, scheme, *numbers = line.split()
        printed[(env, scheme)] = [float(x) for x in numbers]
    assert len(printed) == 5 * 6, sorted(printed)
    return printed


@pytest.mark.parametrize(
    "heading, sensitivity, only_excluding_zero",
    [
        # The page lists every row whose interval excludes zero, and some
        # whose interval does not that its prose discusses.
        ("Sensitivity: RFC 6675 §6's timer restart", "sack_restart_rto_in_recovery=true", False),
        # "The table lists every SACK row whose interval excludes zero".
        ("Sensitivity: Proportional Rate Reduction", "sack_proportional_rate_reduction=true", True),
    ],
)
def test_the_matrix_pages_sensitivity_tables_are_what_the_recipe_prints(
    reproduce, capsys, heading, sensitivity, only_excluding_zero
):
    """The matrix page's tables of each SACK row against itself (option on
    minus off, paired by run): the PRR section's recipe (a Python block),
    run on the default run and the sensitivity run, prints the figures
    each table lists, and each table lists every row whose interval
    excludes zero (only those, where the page says so)."""
    printed = paired_sack_rows(reproduce, capsys, sensitivity)
    section = matrix_section(heading)
    header = "| environment | scheme | goodput off | on | on - off [95% CI] | timeouts off -> on |"
    listed = set()
    for line in section[section.index(header) :].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        key = (MATRIX_ENVIRONMENTS[cells[0]], MATRIX_SCHEMES[cells[1]])
        off, on, diff, low, high, timeouts_off, timeouts_on = printed[key]
        assert cells[2:5] == [f"{off:.1f}", f"{on:.1f}", f"{diff:.2f} [{low:.2f}, {high:.2f}]"], line
        # DCLOR's environment records no timeouts per run.
        assert cells[5] == ("" if key[0] == "dclor" else f"{timeouts_off:.0f} -> {timeouts_on:.0f}"), line
        listed.add(key)
    excluding_zero = {k for k, v in printed.items() if v[3] > 0 or v[4] < 0}
    assert excluding_zero <= listed, sorted(excluding_zero - listed)
    if only_excluding_zero:
        assert listed == excluding_zero, sorted(listed - excluding_zero)


def test_the_matrix_pages_probe_ablation_is_what_its_recipe_gives(tmp_path, monkeypatch):
    """The matrix page's RACK-without-the-probe ablation (Kick's uplink,
    CUBIC+RACK-TLP against `loss_detection = "rack"`, the matrix's 50
    seeds): its recipe, run as written, gives the response times, timeouts
    and paired difference the page states."""
    text = (PAGES / "matrix.md").read_text()
    start = text.index("The recipe (response time from the")
    block = text[text.index("```python\n", start) + 10 :]
    recipe = textwrap.dedent(block[: block.index("```")])
    monkeypatch.chdir(tmp_path)  # the recipe writes its two TOML files here
    names: dict = {}
    exec(compile(recipe, "matrix.md (probe ablation recipe)", "exec"), names)
    resp, timeouts, d = names["resp"], names["timeouts"], names["d"]
    low, high = stats.t.interval(0.95, len(d) - 1, loc=d.mean(), scale=d.std(ddof=1) / np.sqrt(len(d)))
    prose = " ".join(text[text.index("Taking the", start - 3000) : start].split())
    rack, tlp = resp["rack"].mean(), resp["rack_tlp"].mean()
    for claim in (
        f"instead of {tlp:.2f} s",
        f"per run instead of {timeouts['rack_tlp']:.2f})",
        f"takes {rack:.2f} s ({rack:.3f}) and {timeouts['rack']:.2f} timeouts per run",
        f"RACK-TLP minus RACK, paired: {d.mean():+.2f} s [{low:+.2f}, {high:+.2f}], undecided "
        f"({int((d != 0).sum())} of the 50 runs differ)",
    ):
        assert claim in prose, claim
    assert low < 0 < high  # "undecided"
