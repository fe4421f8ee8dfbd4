"""The slopes the "Why attention" view measures (CPU time of one layer against the sequence length n on log-log
axes), as the view measures them, several times: a timing belongs here, not in a test.

    python bench/attention_cost.py [--runs 5]

Prints Markdown: each run's fitted exponent p (t ∝ n^p) for one self-attention layer and one recurrent layer,
and their medians, beside what the lesson says of them: the recurrence's near 1 (0.6 to 1.4 here), the
attention layer's steeper (1.5 to 2.6 here; it nears 2 only as n grows, the projections' n · d² part weighing at
the lengths measured).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analysis.attention_cost import fit_power_law, measure_cost  # noqa: E402

EXPECTED = {"attention": (1.5, 2.6), "recurrence": (0.6, 1.4)}  # the ranges the lesson's words allow


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    slopes = {name: [] for name in EXPECTED}
    for _ in range(runs):
        cost = measure_cost()
        slopes["attention"].append(fit_power_law(cost.lengths, cost.attention).exponent)
        slopes["recurrence"].append(fit_power_law(cost.lengths, cost.recurrence).exponent)
    print("| layer | exponents, one a run | median | the lesson's range | within |")
    print("|---|---|---:|---|---|")
    for name, values in slopes.items():
        low, high = EXPECTED[name]
        median = statistics.median(values)
        print(
            f"| {name} | {', '.join(f'{v:.2f}' for v in values)} | {median:.2f} | {low} to {high} | "
            f"{'yes' if low < median < high else 'no'} |"
        )


if __name__ == "__main__":
    main()
