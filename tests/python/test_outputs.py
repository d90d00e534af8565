"""A capture or a trace that cannot be written (README, "Exit status";
docs/capture.md): the CLI says so in one line, ``airtcp: PATH: problem``,
the path as the run would have written it and the problem in the
operating system's words, and exits 2; the API raises Python's own
OSError (FileNotFoundError, NotADirectoryError, ...) with ``filename`` the
path and ``strerror`` the problem. Never Rust's "(os error 2)" nor
pyarrow's "Failed to open local file ... Detail: ...".

A file that cannot be created is found before anything is simulated; a
write that fails later (a full disk) is reported when the run ends, naming
the file all the same.
"""

import os
import sys

import pytest

import airtcp
from conftest import EXAMPLES, run_cli

WIRELESS = EXAMPLES / "wireless.toml"
LINK = "base_station<->mobile"
USAGE = 2

# (file asked for, the problem as strerror(3) says it). /proc takes no new
# file and no new directory, even from root; "afile" is a regular file and
# "adir" a directory, made by the test.
CANNOT_CREATE = [
    ("/proc/airtcp-test.{ext}", "No such file or directory"),
    ("/proc/airtcp-no-dir/x.{ext}", "No such file or directory"),
    ("afile/x.{ext}", "Not a directory"),
    ("adir", "Is a directory"),
]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's /proc and /dev/full")


def _setup(tmp_path):
    (tmp_path / "afile").write_text("a file\n")
    (tmp_path / "adir").mkdir()


def _option(kind: str, path: str) -> list[str]:
    return ["--pcap", f"{LINK}={path}"] if kind == "pcap" else ["--trace", path]


def _path(kind: str, template: str) -> str:
    return template.format(ext="pcapng" if kind == "pcap" else "parquet")


def _one_line(stderr: str) -> str:
    assert stderr.endswith("\n") and stderr.count("\n") == 1, stderr
    for noise in ("os error", "Errno", "Detail", "Traceback", "Failed to open"):
        assert noise not in stderr, stderr
    return stderr.rstrip("\n")


@pytest.mark.parametrize("kind", ["pcap", "trace"])
@pytest.mark.parametrize("template, problem", CANNOT_CREATE, ids=[t for t, _ in CANNOT_CREATE])
def test_cli_names_an_output_it_cannot_create(tmp_path, kind, template, problem):
    _setup(tmp_path)
    path = _path(kind, template)
    r = run_cli("run", WIRELESS, *_option(kind, path), cwd=tmp_path)
    assert r.returncode == USAGE, r.stderr
    assert _one_line(r.stderr) == f"airtcp: {path}: {problem}"
    assert r.stdout == ""
    assert (tmp_path / "afile").read_text() == "a file\n" and not os.listdir(tmp_path / "adir")


@pytest.mark.parametrize("kind", ["pcap", "trace"])
def test_cli_names_the_seed_file_it_cannot_create(tmp_path, kind):
    """With --runs, each run's file has -seedN before its extension: the
    line names the one that failed."""
    path = _path(kind, "/proc/airtcp-test.{ext}")
    r = run_cli("run", WIRELESS, "--runs", "3", "--workers", "2", *_option(kind, path), cwd=tmp_path)
    assert r.returncode == USAGE, r.stderr
    stem, ext = os.path.splitext(path)
    line = _one_line(r.stderr)
    assert line in [f"airtcp: {stem}-seed{s}{ext}: No such file or directory" for s in (1, 2, 3)], line


@pytest.mark.parametrize("kind", ["pcap", "trace"])
def test_cli_names_the_directory_of_out(tmp_path, kind):
    """A relative file goes in --out: the line names it there."""
    (tmp_path / "res" / "afile").mkdir(parents=True)
    r = run_cli("run", WIRELESS, "--out", "res", *_option(kind, "afile"), cwd=tmp_path)
    assert r.returncode == USAGE, r.stderr
    assert _one_line(r.stderr) == f"airtcp: {os.path.join('res', 'afile')}: Is a directory"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("kind", ["pcap", "trace"])
def test_cli_names_an_output_whose_writes_fail(tmp_path, kind):
    """/dev/full opens, and every write to it fails: a disk that fills
    during the run."""
    r = run_cli("run", WIRELESS, *_option(kind, "/dev/full"), cwd=tmp_path)
    assert r.returncode == USAGE, r.stderr
    assert _one_line(r.stderr) == "airtcp: /dev/full: No space left on device"


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_cli_names_the_out_table_it_cannot_write(tmp_path, fmt):
    """--out's text tables are written by the binding (`tables/text.rs`):
    a table file that is a directory, or whose writes fail (a link to
    /dev/full: the disk filling while the tables are written), is one line
    naming that file, exit 2."""
    res = tmp_path / "res"
    (res / f"flows.{fmt}").mkdir(parents=True)
    r = run_cli("run", WIRELESS, "--out", "res", "--format", fmt, cwd=tmp_path)
    assert r.returncode == USAGE, r.stderr
    assert _one_line(r.stderr) == f"airtcp: {os.path.join('res', f'flows.{fmt}')}: Is a directory"
    assert r.stdout == ""
    if os.path.exists("/dev/full"):
        (res / f"flows.{fmt}").rmdir()
        (res / f"links.{fmt}").symlink_to("/dev/full")
        r = run_cli("run", WIRELESS, "--out", "res", "--format", fmt, cwd=tmp_path)
        assert r.returncode == USAGE, r.stderr
        assert _one_line(r.stderr) == f"airtcp: {os.path.join('res', f'links.{fmt}')}: No space left on device"


@pytest.mark.parametrize("kind", ["pcap", "trace"])
@pytest.mark.parametrize("template, problem", CANNOT_CREATE, ids=[t for t, _ in CANNOT_CREATE])
def test_api_raises_oserror_naming_the_file_before_simulating(tmp_path, monkeypatch, kind, template, problem):
    _setup(tmp_path)
    monkeypatch.chdir(tmp_path)
    path = _path(kind, template)
    observe = {"pcap": {LINK: path}} if kind == "pcap" else {"trace": path}
    simulated = []  # the progress callback gets each simulated second
    with pytest.raises(OSError) as info:
        airtcp.run(WIRELESS, progress=simulated.append, **observe)
    e = info.value
    assert (e.filename, e.strerror) == (path, problem), str(e)
    assert str(e) == f"[Errno {e.errno}] {problem}: {path!r}"
    assert simulated == [], "the run was simulated before its file was found unwritable"


@pytest.mark.parametrize("kind", ["pcap", "trace"])
def test_api_run_many_raises_oserror_naming_the_file(tmp_path, kind):
    path = _path(kind, "/proc/airtcp-test.{ext}")
    observe = {"pcap": {LINK: path}} if kind == "pcap" else {"trace": path}
    with pytest.raises(FileNotFoundError) as info:
        airtcp.run_many(WIRELESS, seeds=[1, 2, 3], workers=2, progress=False, out_dir=tmp_path, **observe)
    stem, ext = os.path.splitext(path)
    assert info.value.filename in [f"{stem}-seed{s}{ext}" for s in (1, 2, 3)]
    assert info.value.strerror == "No such file or directory"


@pytest.mark.parametrize("failing", ["trace", "second capture"])
def test_a_run_that_fails_before_simulating_leaves_no_capture(tmp_path, failing):
    """Files are created before the run, the captures first: when a later
    one cannot be (the trace's, or another capture's), the run fails
    before simulating anything, and the captures already created (headers
    only) are removed rather than left to pass for its captures."""
    bad = _path("trace" if failing == "trace" else "pcap", "/proc/airtcp-test.{ext}")
    second = ["--trace", bad] if failing == "trace" else ["--pcap", f"base_station={bad}"]
    r = run_cli("run", WIRELESS, "--pcap", f"{LINK}=first.pcapng", *second, cwd=tmp_path)
    assert r.returncode == USAGE, r.stderr
    assert _one_line(r.stderr) == f"airtcp: {bad}: No such file or directory"
    assert os.listdir(tmp_path) == []
    if failing == "trace":
        observe = {"pcap": {LINK: "first.pcapng"}, "trace": bad}
    else:
        observe = {"pcap": {LINK: "first.pcapng", "base_station": bad}}
    with pytest.raises(FileNotFoundError):
        airtcp.run(WIRELESS, out_dir=tmp_path, **observe)
    assert os.listdir(tmp_path) == []
