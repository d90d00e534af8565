"""Draw the README's figure from examples/wireless.toml: cwnd and ssthresh
over 20 s, and the time-sequence diagram around the first wireless loss.

    python scripts/readme_plot.py        # writes docs/img/wireless.png
    python scripts/readme_plot.py OUT    # writes OUT instead (the tests)
"""

import pathlib
import sys
import tempfile
import tomllib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import airtcp  # noqa: E402
from airtcp import plots  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "img" / "wireless.png"


def main(out: pathlib.Path = OUT) -> None:
    sc = tomllib.loads((ROOT / "examples" / "wireless.toml").read_text())
    sc["simulation"]["duration"] = "20s"
    sc["output"] = {"timeseries": {"interval": "50ms", "links": False}}
    with tempfile.TemporaryDirectory() as tmp:
        r = airtcp.run(sc, trace=True, out_dir=tmp)
        trace = r.trace
    first_loss = trace[trace.event == "drop"].time_s.min()
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 7), constrained_layout=True)
    plots.cwnd(r, ax=top)
    top.set_title("examples/wireless.toml: NewReno + SACK over a 2 Mb/s hop losing 1% of data segments")
    plots.time_sequence(trace, ax=bottom, since_s=first_loss - 0.15, until_s=first_loss + 0.45)
    bottom.set_title(f"time-sequence diagram around the first wireless loss ({first_loss:.2f} s)")
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=90)
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")


if __name__ == "__main__":
    if len(sys.argv) > 2:
        sys.exit("usage: python scripts/readme_plot.py [OUT.png]")
    main(pathlib.Path(sys.argv[1]).resolve() if len(sys.argv) == 2 else OUT)
