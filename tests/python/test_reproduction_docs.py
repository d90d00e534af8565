"""The reproduction pages quote the program: each block of
docs/reproductions/*.md marked ``<!-- output of: airtcp reproduce NAME
[--set PARAM=VALUE ...] (...) -->`` is, line for line, in what that command
writes now (tables.txt and report.md). Users cite these pages, so a change
to the simulator that moves a reported number fails here until the page
says the new one.

Ten commands (the six pages' default runs and the four sensitivity runs
whose output the pages show) take about six minutes on 2 cores. (The
matrix page's prose quotes cells of its marked block; the heatmap it shows
is drawn by the same run.)"""

import re
import shlex

import pytest

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


@pytest.mark.parametrize("command", sorted(BLOCKS))
def test_the_page_quotes_what_the_command_writes(tmp_path, command):
    r = run_cli("reproduce", *shlex.split(command), "--out", tmp_path, "--quiet", timeout=900)
    assert r.returncode == 0, r.stderr
    written = set()
    for f in ("tables.txt", "report.md"):  # the matrix writes no tables.txt
        if (tmp_path / f).exists():
            written |= {line.rstrip() for line in (tmp_path / f).read_text().splitlines()}
    assert written, f"airtcp reproduce {command} wrote neither tables.txt nor report.md"
    for where, block in BLOCKS[command]:
        missing = [line for line in block if line not in written]
        assert not missing, f"{where} quotes lines `airtcp reproduce {command}` no longer writes: {missing[:3]}"
