"""Coverage of the paired-bootstrap interval of a comparison of two
percentiles (docs/sweeps.md; stats.py's minimum runs for a percentile
comparison): how often the 95% interval of stat(A) - stat(B) and of
stat(A) / stat(B) holds the true value, over SAMPLES samples of n paired
runs at each size.

Runs: paired lognormal, log A ~ N(0, 1), log B ~ N(0.5, 1), the logs
correlated at RHO (the common random numbers of two schemes); the true
q-th percentiles are exp(z_q) and exp(0.5 + z_q). The interval is the one
the reproductions use (stats.difference, stats.ratio: paired BCa, else
percentile), with the minimum-runs rule switched off so that sizes below
it are measured too. Deterministic: sample s of size n draws from
default_rng((n, s)).

    python scripts/bootstrap_coverage.py --q 95 --sizes 48 60 72 84 100
"""

import argparse
import math
import time

import numpy as np
from scipy.stats import norm

from airtcp.experiments import stats
from airtcp.experiments.base import percentile


def coverage(q: float, n: int, samples: int, rho: float) -> tuple[float, float, float, float]:
    """(difference coverage, ratio coverage, difference mean width, ratio
    mean width) over ``samples`` samples of ``n`` paired runs."""
    stat = percentile(q)
    z = norm.ppf(q / 100.0)
    true_a, true_b = math.exp(z), math.exp(0.5 + z)
    hits_d = hits_r = 0
    widths_d, widths_r = [], []
    for s in range(samples):
        rng = np.random.default_rng((n, s))
        e = rng.standard_normal((2, n))
        la = e[0]
        lb = 0.5 + rho * e[0] + math.sqrt(1 - rho**2) * e[1]
        a, b = np.exp(la), np.exp(lb)
        d = stats.difference(a, b, stat)
        r = stats.ratio(a, b, stat)
        assert d.has_ci and r.has_ci, (n, s, d, r)
        hits_d += d.low <= true_a - true_b <= d.high
        hits_r += r.low <= true_a / true_b <= r.high
        widths_d.append(d.high - d.low)
        widths_r.append(r.high - r.low)
    return hits_d / samples, hits_r / samples, float(np.mean(widths_d)), float(np.mean(widths_r))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--q", type=float, default=95.0)
    ap.add_argument("--sizes", type=int, nargs="+", default=[48, 60, 72, 84, 100])
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--rho", type=float, default=0.7)
    args = ap.parse_args()
    stats._too_few_for_percentile = lambda stat, samples: False  # measure below the minimum too
    print(f"p{args.q:g}, {args.samples} samples per size, log correlation {args.rho:g}")
    print("runs  difference  ratio  (mean width: difference, ratio)  seconds")
    for n in args.sizes:
        t = time.process_time()
        cd, cr, wd, wr = coverage(args.q, n, args.samples, args.rho)
        print(f"{n:4d}  {100 * cd:9.1f}%  {100 * cr:5.1f}%  ({wd:.3f}, {wr:.3f})  {time.process_time() - t:.1f}")


if __name__ == "__main__":
    main()
