"""The ``airtcp`` command line.

    airtcp run FILE [--seed N] [--runs N] [--out DIR] [--format csv|parquet|json]
                    [--workers N] [--quiet] [--pcap POINT[=FILE] ...]
                    [--trace [FILE]] [--trace-flow NAME ...] [--trace-link LINK ...]
    airtcp validate FILE
    airtcp sweep FILE [--out DIR] [--workers N] [--dask local|ADDRESS] [--runs N]
                      [--seed N] [--quiet]
    airtcp sweep --status DIR
    airtcp bench [--quick]
    airtcp reproduce [NAME] [--runs N] [--out DIR] [--workers N] [--dask local|ADDRESS]
                     [--quiet] [--set PARAM=VALUE ...] [--params]
    airtcp --version

Exit status: 0 on success, 2 for a wrong scenario or wrong usage, or an
output that cannot be written (the error is one line on stderr), 1 when
another sweep or reproduction is writing the same output directory, 130
when interrupted with Ctrl-C (whatever finished is still reported and
written, and the command that resumes is printed; the captures and traces
of runs stopped midway are removed; a Ctrl-C once every run has finished
interrupts nothing, and the command ends as it would have), 141 when the reader of
stdout went away (``airtcp run FILE --out DIR | head -1``): every file asked
for is written before anything is printed, the rest of what would have
been printed is dropped, and nothing is said about it (130 if Ctrl-C
stopped the command as well).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import sys
import time
import warnings

from . import __build__, __version__
from .api import (
    MAX_RUNS,
    MAX_RUNS_WHY,
    DeterministicScenarioWarning,
    Result,
    ScenarioError,
    load,
    removed_text,
    run,
    run_many,
    seeds_warning,
)

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
# stdout's reader went away: 128 + SIGPIPE, the status a shell reports for
# a command SIGPIPE ended (`seq 1000000 | head -1`), as 130 is 128 + SIGINT.
EXIT_READER_GONE = 141
# Another sweep or reproduction is writing the same output directory.
EXIT_BUSY = 1
TABLE_FILES = ("flows", "links", "transfers", "series", "agents")


def _digits(s: str, what: str) -> int:
    """``s`` as a decimal integer: ASCII digits and nothing else. int()
    would trim spaces and accept a sign, underscores and other scripts'
    digits ("\uff13"); the bar is a clear error, never a silent fix."""
    if not s or not all("0" <= c <= "9" for c in s):
        raise argparse.ArgumentTypeError(f"expected {what} (decimal digits only), got {s!r}")
    return int(s)


def _positive_int(s: str) -> int:
    v = _digits(s, "a positive integer")
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {s!r}")
    return v


def _run_count(s: str) -> int:
    """A number of runs: positive and at most MAX_RUNS, said before
    anything is planned (a seed list of 10^9 was built whole)."""
    v = _positive_int(s)
    if v > MAX_RUNS:
        raise argparse.ArgumentTypeError(f"{s} runs: {MAX_RUNS_WHY}")
    return v


def _seed(s: str) -> int:
    v = _digits(s, "an integer seed")
    if v >= 2**64:
        raise argparse.ArgumentTypeError(f"seed must be in [0, 2**64), got {s}")
    return v


def _out_dir(s: str) -> str:
    """An output directory: not empty or blank. An unset ``$OUT`` in
    ``--out "$OUT"`` wrote no tables (run) or wrote to the default
    directory (sweep, reproduce), where the command line said nothing."""
    if not s.strip():
        raise argparse.ArgumentTypeError(f"must not be empty, got {s!r}")
    return s


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="airtcp",
        description="Deterministic packet-level TCP simulator.",
    )
    p.add_argument("--version", action="version", version=f"airtcp {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    r = sub.add_parser("run", help="run a scenario file", description="Run a scenario and summarise it.")
    r.add_argument("file", metavar="FILE", help="scenario TOML file")
    r.add_argument("--seed", type=_seed, help="seed (default: the file's); first seed with --runs")
    r.add_argument(
        "--runs",
        type=_run_count,
        default=1,
        help=f"number of seeds to run: seed, seed+1, ... (at most {MAX_RUNS:,}: every run's results are kept in memory)",
    )
    r.add_argument("--out", metavar="DIR", type=_out_dir, help="write result tables and run.json to DIR")
    r.add_argument("--format", choices=("csv", "parquet", "json"), default="csv", help="table format for --out")
    r.add_argument("--workers", type=_positive_int, help="parallel threads for --runs (default: all cores)")
    r.add_argument("--quiet", "-q", action="store_true", help="no progress bar, no summary")
    r.add_argument(
        "--pcap",
        action="append",
        default=[],
        metavar="POINT[=FILE]",
        help="capture packets for Wireshark (pcapng) at a link direction 'A->B', both directions "
        "'A<->B', or a node; FILE defaults to capture-POINT.pcapng in --out (or here); repeatable",
    )
    r.add_argument(
        "--trace",
        nargs="?",
        const=True,
        default=None,
        metavar="FILE",
        help="write the per-packet event trace (Parquet; default trace.parquet in --out, or here)",
    )
    r.add_argument(
        "--trace-flow", action="append", default=[], metavar="NAME", help="trace only this flow (repeatable)"
    )
    r.add_argument(
        "--trace-link",
        action="append",
        default=[],
        metavar="LINK",
        help="trace only the events on this link direction, or 'A<->B' (repeatable)",
    )

    v = sub.add_parser("validate", help="check a scenario file", description="Check a scenario file.")
    v.add_argument("file", metavar="FILE")

    sw = sub.add_parser(
        "sweep",
        help="run a parameter sweep",
        description="Run the parameter sweep defined in FILE's [sweep] table: every point x seed once, "
        "stored as Parquet in DIR. Run the same command again to resume an interrupted sweep.",
    )
    sw.add_argument("file", metavar="FILE", nargs="?", help="scenario TOML file with a [sweep] table")
    sw.add_argument("--out", metavar="DIR", type=_out_dir, help="output directory (default: airtcp-out/<FILE's name>)")
    sw.add_argument("--workers", type=_positive_int, help="parallel threads, or LocalCluster workers (default: all cores)")
    _dask_option(sw)
    sw.add_argument(
        "--runs",
        type=_run_count,
        help=f"seeds per point (replaces the file's runs/seeds; points x seeds at most {MAX_RUNS:,})",
    )
    sw.add_argument("--seed", type=_seed, help="first seed with --runs (default: the file's)")
    sw.add_argument("--status", metavar="DIR", help="show what DIR holds and what is left, run nothing")
    sw.add_argument("--quiet", "-q", action="store_true", help="no progress bar, no summary")

    b = sub.add_parser("bench", help="measure simulator speed", description="Measure simulator speed.")
    b.add_argument("--quick", action="store_true", help="10x shorter runs")
    b.add_argument(
        "--large",
        action="store_true",
        help="also the 100,000-flow dumbbell, its loop and its whole airtcp run with each --out format (about 2 GB)",
    )
    b.add_argument(
        "--run-file",
        metavar="FILE",
        default="examples/dumbbell.toml",
        help="scenario whose whole `airtcp run` process is timed (default: %(default)s; skipped if absent)",
    )

    rp = sub.add_parser(
        "reproduce",
        help="reproduce a source document's evaluation",
        description="Reproduce a source document's evaluation and compare with its numbers. "
        "Without NAME, list the reproductions. Finished runs are cached in DIR; "
        "run the same command again to resume an interrupted reproduction.",
    )
    rp.add_argument("name", metavar="NAME", nargs="?", help="reproduction to run (omit to list them)")
    rp.add_argument(
        "--runs",
        type=_run_count,
        help=f"runs per cell and scheme (default: the document's; cells x schemes x runs at most {MAX_RUNS:,})",
    )
    rp.add_argument("--out", metavar="DIR", type=_out_dir, help="output and cache directory (default: airtcp-out/NAME)")
    rp.add_argument("--workers", type=_positive_int, help="parallel threads, or LocalCluster workers (default: all cores)")
    _dask_option(rp)
    rp.add_argument("--quiet", "-q", action="store_true", help="no progress bar, no tables")
    rp.add_argument(
        "--set",
        dest="params",
        action="append",
        default=[],
        metavar="PARAM=VALUE",
        help="change an open parameter of the experiment (VALUE is JSON or a string); repeatable",
    )
    rp.add_argument(
        "--params",
        dest="list_params",
        action="store_true",
        help="list the experiment's parameters, their values (with any --set) and what each may be, then exit",
    )
    return p


def _dask_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--dask",
        metavar="local|ADDRESS",
        help="run on Dask: 'local' starts a LocalCluster, tcp://HOST:PORT joins a scheduler "
        "(needs pip install 'airtcp[dask]')",
    )


class _ReaderGone(Exception):
    """stdout's reader went away (EPIPE): ``airtcp ... | head -1``. Not an
    OSError, so that no handler of output errors takes it for one."""


class _Stream:
    """``sys.stdout`` or ``sys.stderr`` while a command runs. Once its
    reader has gone (EPIPE), its file descriptor is pointed at os.devnull,
    so that nothing written later, nor Python's flush at exit, fails on it
    again ("Exception ignored ... BrokenPipeError", status 120). Then stdout
    raises _ReaderGone: the command stops, its files already written (the
    commands print only once they are). stderr carries on: a warning nobody
    reads is no reason to stop writing a run's results."""

    def __init__(self, stream, stop: bool):
        self.stream = stream
        self.stop = stop

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except BrokenPipeError:
            self._gone()
            return len(text)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except BrokenPipeError:
            self._gone()

    def _gone(self) -> None:
        with contextlib.suppress(OSError, ValueError):  # no file descriptor (a test's capture)
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, self.stream.fileno())
            finally:
                os.close(devnull)
        if self.stop:
            raise _ReaderGone

    def __getattr__(self, name):
        return getattr(self.stream, name)


def main(argv: list[str] | None = None) -> int:
    global _interrupted_now
    _interrupted_now = False
    out, err = _Stream(sys.stdout, stop=True), _Stream(sys.stderr, stop=False)
    sys.stdout, sys.stderr = out, err
    try:
        try:
            code = _command(argv)
        except SystemExit:  # argparse, after --help, --version or a usage error
            out.flush()
            raise
        out.flush()  # here, not at exit, where a reader gone is too late to catch
        return code
    except _ReaderGone:
        # A Ctrl-C outranks it: the results are partial, which is what a
        # script must be told (run prints what finished after Ctrl-C).
        return EXIT_INTERRUPTED if _interrupted_now else EXIT_READER_GONE
    finally:
        sys.stdout, sys.stderr = out.stream, err.stream


# Set by _interrupted(): this command was stopped by Ctrl-C.
_interrupted_now = False


def _interrupted(message: str) -> int:
    """Say on stderr that Ctrl-C stopped the command ("airtcp: interrupted;
    ..."), and return 130, the status from then on, even if stdout's reader
    goes away while what finished is printed (main())."""
    global _interrupted_now
    _interrupted_now = True
    print(message, file=sys.stderr)
    return EXIT_INTERRUPTED


def _command(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "run":
            return cmd_run(args)
        if args.command == "validate":
            return cmd_validate(args)
        if args.command == "sweep":
            return cmd_sweep(args)
        if args.command == "bench":
            return cmd_bench(args)
        if args.command == "reproduce":
            return cmd_reproduce(args)
    except ScenarioError as e:
        print(str(e), file=sys.stderr)
        return EXIT_USAGE
    except OSError as e:  # an output (capture, trace, --out) cannot be written
        print(_os_error(e), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return _interrupted("airtcp: interrupted")
    raise AssertionError(args.command)


def _os_error(e: OSError) -> str:
    """One line naming the file and the problem ("airtcp: out: File
    exists"), not Python's "[Errno 17] File exists: 'out'"."""
    if e.filename is not None and e.strerror:
        return f"airtcp: {os.fsdecode(e.filename)}: {e.strerror}"
    return f"airtcp: {e}"


def cmd_validate(args) -> int:
    sc = load(args.file)

    def count(n: int, what: str) -> str:
        return f"{n} {what}" + ("" if n == 1 else "s")

    sweep = ""
    if sc.has_sweep:
        from .campaign.sweep import define

        sweep = f"; sweep: {define(sc).describe()}, every point valid"
    print(f"{args.file}: ok ({count(sc.nodes, 'node')}, {count(sc.links, 'link')}, {count(sc.flows, 'flow')}){sweep}")
    return 0


def cmd_run(args) -> int:
    sc = load(args.file)
    if sc.has_sweep:
        print(
            f"airtcp: note: {args.file} defines a [sweep]; this runs its base scenario "
            f"(run the sweep with: airtcp sweep {args.file})",
            file=sys.stderr,
        )
    first = args.seed if args.seed is not None else sc.seed
    seeds = [first + i for i in range(args.runs)]
    if seeds[-1] >= 2**64:
        print(f"airtcp: seeds {first}..{seeds[-1]} exceed 2**64 - 1", file=sys.stderr)
        return EXIT_USAGE
    pointless = seeds_warning(sc, seeds)
    if pointless:
        print(f"airtcp: warning: {pointless}", file=sys.stderr)
    if args.out:
        # Now, not after the run: a --out that cannot be a directory is
        # said at once, naming it (captures and traces are created before
        # the run too, and their errors name them).
        os.makedirs(args.out, exist_ok=True)
    show = not args.quiet and sys.stderr.isatty()
    observe = _observe_args(args)
    interrupted = False
    t0 = time.perf_counter()
    if args.runs == 1:
        try:
            res = run(sc, seed=first, progress=_sim_bar(sc) if show else False, **observe)
        except KeyboardInterrupt as e:
            removed = [(first, f) for f in getattr(e, "_removed_files", ())]
            return _interrupted("airtcp: interrupted; no run finished" + _removed_note(removed))
    else:
        with warnings.catch_warnings():
            # run_many warns on Ctrl-C; we say it ourselves below.
            warnings.simplefilter("ignore", RuntimeWarning)
            warnings.simplefilter("ignore", DeterministicScenarioWarning)
            res = run_many(sc, seeds, workers=args.workers, progress=show, **observe)
        if len(res.seeds) < len(seeds):
            interrupted = True
            _interrupted(
                f"airtcp: interrupted; {len(res.seeds)} of {len(seeds)} runs finished" + _removed_note(res.removed_files)
            )
    wall_s = time.perf_counter() - t0
    # Every file first, then the summary: a reader of stdout that has gone
    # (| head -1) stops the printing, never the writing.
    if args.out:
        files = write_result(res, args.out, args.format)
        meta = {
            "airtcp_version": __version__,
            "airtcp_build": __build__,
            "scenario": os.path.abspath(args.file),
            "seeds": res.seeds,
            "runs_requested": len(seeds),
            "runs_finished": len(res.seeds),
            "interrupted": interrupted,
            "duration_s": res.duration_s,
            "events": res.events,
            "packet_hops": res.packet_hops,
            "wall_s": round(wall_s, 3),
            "format": args.format,
            "tables": files,
            # Every file named relative to DIR, as the tables are, so that
            # DIR can be moved and read from anywhere.
            "captures": [
                {"seed": seed, "file": _relative_to(path, args.out), "packets": n}
                for seed, path, n in res.capture_files
            ],
            "traces": [{"seed": seed, "file": _relative_to(path, args.out)} for seed, path in res.trace_files],
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        }
        with open(os.path.join(args.out, "run.json"), "w") as f:
            json.dump(meta, f, indent=2)
            f.write("\n")
    if not args.quiet:
        print(res.summary())
        for path, packets in res.captures:
            print(f"\nwrote {packets:,} packets to {path} (open it in Wireshark, or: tshark -r {path})")
        for _, path in res.trace_files:
            print(f"\nwrote the per-packet trace to {path} (airtcp.read_trace)")
        if args.out:
            print(f"\nwrote {', '.join(files.values())} and run.json to {args.out}")
    return EXIT_INTERRUPTED if interrupted else 0


def _relative_to(path: str, directory: str) -> str:
    """``path`` (relative to the working directory, or absolute) as seen
    from ``directory``."""
    return os.path.relpath(os.path.abspath(path), os.path.abspath(directory))


def _removed_note(removed: list[tuple[int, str]]) -> str:
    """'; the partial capture and trace files of N runs stopped midway
    were removed', or nothing if none were."""
    return f"; {removed_text(removed)}" if removed else ""


def _observe_args(args) -> dict:
    """The run's pcap/trace/out_dir keyword arguments from the command line."""
    pcap = {}
    for item in args.pcap:
        point, sep, file = item.partition("=")
        pcap[point] = file if sep else None
    trace = None
    if args.trace is not None or args.trace_flow or args.trace_link:
        trace = {
            "file": None if args.trace in (None, True) else args.trace,
            "flows": args.trace_flow,
            "links": args.trace_link,
        }
    return {"pcap": pcap or None, "trace": trace, "out_dir": args.out}


def _sim_bar(sc):
    """A progress callback drawing a bar of simulated seconds, shown only
    if the run takes more than a moment."""
    from tqdm.auto import tqdm

    bar = tqdm(
        total=round(sc.duration_s),
        unit="sim s",
        desc=os.path.basename(sc.source_name),
        leave=False,
        delay=0.5,
    )
    done = [0]

    def update(t: float) -> None:
        n = min(int(t), bar.total)
        if n > done[0]:
            bar.update(n - done[0])
            done[0] = n
        if n >= bar.total:
            bar.close()

    return update


def write_result(res: Result, out: str, fmt: str) -> dict[str, str]:
    """Write the tables of ``res`` to directory ``out``; return {table: file name}."""
    os.makedirs(out, exist_ok=True)
    files = {}
    for name in TABLE_FILES:
        fname = f"{name}.{fmt}"
        path = os.path.join(out, fname)
        if fmt == "parquet":
            import pyarrow.parquet as pq

            pq.write_table(res.tables[name], path)
        else:
            res._write_text(name, path, fmt)
        files[name] = fname
    return files


def cmd_sweep(args) -> int:
    from .campaign.execute import describe
    from .campaign.sweep import SUMMARY, default_out, status, sweep

    if args.status:
        if args.file:
            print("airtcp: give FILE or --status DIR, not both", file=sys.stderr)
            return EXIT_USAGE
        try:
            text = status(args.status)
        except (FileNotFoundError, NotADirectoryError) as e:
            print(_os_error(e), file=sys.stderr)
            return EXIT_USAGE
        print(text)
        return 0
    if not args.file:
        print("airtcp: sweep needs FILE (or --status DIR)", file=sys.stderr)
        return EXIT_USAGE
    if args.seed is not None and args.runs is None:
        print("airtcp: --seed needs --runs (the seeds are SEED, SEED+1, ...)", file=sys.stderr)
        return EXIT_USAGE
    seeds = None
    if args.seed is not None:
        if args.seed + args.runs - 1 >= 2**64:
            print(f"airtcp: seeds {args.seed}..{args.seed + args.runs - 1} exceed 2**64 - 1", file=sys.stderr)
            return EXIT_USAGE
        seeds = range(args.seed, args.seed + args.runs)
    command = " ".join(["airtcp sweep", args.file, *_command_line(args)])
    out = args.out or default_out(args.file)
    show = not args.quiet and sys.stderr.isatty()
    res, code = _campaign(
        lambda: sweep(
            args.file,
            runs=args.runs if seeds is None else None,
            seeds=seeds,
            out=out,
            workers=args.workers,
            dask=args.dask,
            progress=show,
        ),
        stored_in=out,
        command=command,
    )
    if code is not None:
        return code
    if res.interrupted:
        return _interrupted(
            f"airtcp: interrupted; {res.finished} of {res.planned} runs are stored in {res.out}.\n{_resume(command)}"
        )
    if not args.quiet:
        print(res.summary_text())
        print()
        print(
            f"{res.planned} runs ({res.executed} simulated on {describe(args.dask, args.workers)}, "
            f"{res.reused} already in {res.out}) in {res.wall_s:.1f} s; wrote {os.path.join(res.out, SUMMARY)}; "
            f"load them with airtcp.load_results({res.out!r})"
        )
        if res.outside:
            print(
                f"{res.out} also holds {res.outside} runs of other points or seeds, left out of this summary: "
                f"load them with airtcp.load_results({res.out!r}, runs='all')"
            )
    return 0


def _resume(command: str) -> str:
    return f"Run the same command again to resume: {command}"


def _campaign(call, stored_in: str, command: str, usage_errors: tuple = ()):
    """Run a sweep or a reproduction, ``call()``, with the campaign
    warnings on one line; return ``(result, None)``, or ``(None, exit
    code)`` once its error is printed: a directory another process writes
    exits 1, a bad store, missing Dask or ``usage_errors`` exit 2, a Ctrl-C
    outside the runs (planning, writing the summary) keeps what finished
    and prints the resume hint."""
    from .campaign.execute import ArgumentError, DaskMissing
    from .campaign.store import StoreBusy, StoreError

    try:
        with _campaign_warnings():
            return call(), None
    except StoreBusy as e:
        print(f"airtcp: {e}", file=sys.stderr)
        return None, EXIT_BUSY
    except OSError as e:
        print(_os_error(e), file=sys.stderr)
        return None, EXIT_USAGE
    except (StoreError, DaskMissing, ArgumentError, *usage_errors) as e:
        print(f"airtcp: {e}", file=sys.stderr)
        return None, EXIT_USAGE
    except KeyboardInterrupt:
        return None, _interrupted(f"airtcp: interrupted; finished runs are stored in {stored_in}.\n{_resume(command)}")


@contextlib.contextmanager
def _campaign_warnings():
    """A campaign's warnings (a stored run dropped and run again) as one
    line each; its RuntimeWarning on Ctrl-C is said by the caller."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.showwarning = lambda message, *_, **__: print(f"airtcp: warning: {message}", file=sys.stderr)
        yield


def cmd_bench(args) -> int:
    from . import bench

    if os.path.exists(args.run_file):
        # Checked first: a file that cannot be run ended the benchmark,
        # minutes later, in a RuntimeError traceback (exit 1).
        load(args.run_file)
    rows = []
    for name, scenario in bench.scenarios(quick=args.quick, large=args.large):
        print(f"running {name} ...", file=sys.stderr, flush=True)
        rows.append(bench.run_one(name, scenario))
    print(bench.format_table(rows))
    if os.path.exists(args.run_file):
        print(f"timing airtcp run {args.run_file} ...", file=sys.stderr, flush=True)
        import tempfile

        with tempfile.TemporaryDirectory() as out:
            procs = [
                bench.whole_process(["run", args.run_file]),
                bench.whole_process(["run", args.run_file, "--out", out], shown=["run", args.run_file, "--out", "DIR"]),
                bench.whole_process(["validate", args.run_file]),
            ]
    else:
        procs = []
        print(f"\n(no {args.run_file} here: whole-process timing skipped)")
    if args.large:
        procs += _bench_large_processes(args.quick)
    if procs:
        print()
        print(bench.format_process(procs))
    print("running run_many on 1 and 2 threads ...", file=sys.stderr, flush=True)
    print()
    print(bench.format_threads(bench.threads(runs=50, sim_s=0.1 if args.quick else 1.0)))
    return 0


def _bench_large_processes(quick: bool) -> list:
    """``airtcp run`` of the 100,000-flow dumbbell as a user runs it: plain,
    and writing its tables in each ``--out`` format (at this size writing
    them is a cost the user sees: 9.2 million cells)."""
    import tempfile

    from . import bench

    name, text = bench.scenarios(quick=quick, large=True)[-1]
    shown = f"{name}.toml"
    print(f"timing airtcp run {shown} ...", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, shown)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        out = os.path.join(d, "out")
        rows = [bench.whole_process(["run", path], shown=["run", shown])]
        for fmt in ("csv", "json", "parquet"):
            args = ["--out", out, "--format", fmt]
            rows.append(bench.whole_process(["run", path, *args], shown=["run", shown, "--out", "DIR", *args[2:]]))
    return rows


def _list_reproductions(stream) -> None:
    from . import experiments

    print("available reproductions:", file=stream)
    for name, title in experiments.available().items():
        print(f"  {name:12s} {title}", file=stream)
    print("run one with: airtcp reproduce NAME [--runs N]", file=stream)


def _param_value(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return text


def cmd_reproduce(args) -> int:
    from . import experiments
    from .experiments.run import default_out, reproduce

    if args.name is None:
        _list_reproductions(sys.stdout)
        return 0
    try:
        exp = experiments.get(args.name)
    except KeyError:
        print(f"airtcp: unknown reproduction {args.name!r}", file=sys.stderr)
        _list_reproductions(sys.stderr)
        return EXIT_USAGE
    changes, given = {}, {}
    for item in args.params:
        name, sep, value = item.partition("=")
        if not sep or not name:
            print(f"airtcp: --set expects PARAM=VALUE, got {item!r}", file=sys.stderr)
            return EXIT_USAGE
        name = name.strip()
        if name in given:
            # The last one silently won (--set loss_rule=during --set loss_rule=start ran "start").
            print(
                f"airtcp: --set {name} is given twice ({given[name]!r}, then {value.strip()!r}): set each parameter once",
                file=sys.stderr,
            )
            return EXIT_USAGE
        given[name] = value.strip()
        changes[name] = _param_value(value.strip())
    try:
        exp = exp.with_params(**changes)
    except (KeyError, ValueError) as e:
        print(f"airtcp: {e.args[0]}", file=sys.stderr)
        return EXIT_USAGE
    if args.list_params:
        print(_params_listing(exp))
        return 0
    out = args.out or default_out(exp.name)
    command = " ".join(["airtcp reproduce", exp.name, *_command_line(args)])
    show = not args.quiet and sys.stderr.isatty()
    t0 = time.perf_counter()
    from .experiments.runner import store_path

    rep, code = _campaign(
        lambda: reproduce(
            exp, runs=args.runs, out=out, workers=args.workers, progress=show, command=command, dask=args.dask
        ),
        stored_in=store_path(out),
        command=command,
        usage_errors=(ValueError,),  # a parameter the experiment rejects
    )
    if code is not None:
        return code
    oc = rep.outcome
    if rep.interrupted:
        return _interrupted(
            f"airtcp: interrupted; {oc.stored} of {len(oc.plan.jobs)} runs are stored in "
            f"{store_path(out)}.\n{_resume(command)}"
        )
    wall = time.perf_counter() - t0
    if not args.quiet:
        for text in (rep.tables_text(), rep.claims_text()):
            if text:
                print(text)
                print()
        written = rep.files.get("written", f"report.md, runs.csv, runs.parquet, summary.csv and {len(rep.files['plots'])} plots")
        print(
            f"{len(oc.plan.jobs)} runs ({oc.executed} simulated, {oc.reused} from the cache) in {wall:.1f} s; "
            f"wrote {out}/{written}"
        )
    return 0


def _params_listing(exp) -> str:
    """`airtcp reproduce NAME --params`: each parameter, its value and its
    domain, then the rules that tie parameters together."""
    rows = [(k, repr(v), exp.domains[k].describe() if k in exp.domains else "") for k, v in exp.params.items()]
    wn = max(len(r[0]) for r in rows)
    wv = max(len(r[1]) for r in rows)
    lines = [f"{exp.name}: parameters (change one with --set NAME=VALUE)", f"  {'name':{wn}}  {'value':{wv}}  allowed"]
    lines += [f"  {n:{wn}}  {v:{wv}}  {d}" for n, v, d in rows]
    if exp.relations:
        lines += ["together:"]
        lines += [f"  {r.text}" for r in exp.relations]
    return "\n".join(lines)


def _command_line(args) -> list[str]:
    """The options of a command, to print the one that resumes it."""
    parts = []
    if args.runs:
        parts.append(f"--runs {args.runs}")
    if getattr(args, "seed", None) is not None:
        parts.append(f"--seed {args.seed}")
    if args.out:
        parts.append(f"--out {args.out}")
    if args.workers:
        parts.append(f"--workers {args.workers}")
    if args.dask:
        parts.append(f"--dask {args.dask}")
    for item in getattr(args, "params", ()):
        parts.append(f"--set {item}")
    return parts


if __name__ == "__main__":
    sys.exit(main())
