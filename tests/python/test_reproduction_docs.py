"""The reproduction pages quote the program: each block of
docs/reproductions/NAME.md marked ``<!-- output of: airtcp reproduce NAME
... -->`` is, line for line, in what ``airtcp reproduce NAME`` (its default
run, as the page says) writes now (tables.txt and report.md). Users cite
these pages, so a change to the simulator that moves a reported number
fails here until the page says the new one. (The blocks of ``--set``
sensitivity runs are not marked: they need runs of their own.)

The five default runs take about two minutes on 2 cores; the matrix page
quotes its numbers in prose and is not checked here."""

import re

import pytest

from airtcp.experiments.run import reproduce
from conftest import REPO

MARK = re.compile(r"<!-- output of: airtcp reproduce (\w+)\b[^>]*-->")


def marked_blocks(name: str) -> list[list[str]]:
    """The marked blocks of the page, each as its non-blank lines."""
    lines = (REPO / "docs" / "reproductions" / f"{name}.md").read_text().splitlines()
    blocks = []
    for i, line in enumerate(lines):
        m = MARK.fullmatch(line.strip())
        if not m:
            continue
        assert m.group(1) == name, f"{name}.md:{i + 1} marks the output of {m.group(1)}"
        assert lines[i + 1] == "```", f"{name}.md:{i + 2}: a marked block starts right after its mark"
        end = lines.index("```", i + 2)
        blocks.append([line.rstrip() for line in lines[i + 2 : end] if line.strip()])
    return blocks


@pytest.mark.parametrize("name", ["kick", "gsnoop", "dclor", "threshold", "wmecn"])
def test_the_page_quotes_the_default_run(tmp_path, name):
    blocks = marked_blocks(name)
    assert blocks, f"docs/reproductions/{name}.md marks no output block"
    reproduce(name, out=tmp_path, workers=2, progress=False)
    written = set()
    for f in ("tables.txt", "report.md"):
        written |= {line.rstrip() for line in (tmp_path / f).read_text().splitlines()}
    for block in blocks:
        missing = [line for line in block if line not in written]
        assert not missing, f"docs/reproductions/{name}.md quotes lines the program no longer writes: {missing[:3]}"
