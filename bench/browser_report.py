"""What ``bench/browser.py`` measured, as Markdown: one page's timings (``PageResult``), a row per control, a row per
page, and each page against the budget of docs/performance.md ("Budgets")."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

PRESENTATION_LABEL = "Presentation mode"
# The controls that replace the whole page (docs/performance.md, "Budgets": Presentation mode, a model picker, Train's
# task, the lesson on Lessons, which replaces everything under the title): their budget is 3.5 x the floor; every
# other control's is 2.5 x, and the median of a page's others 1.5 x.
WHOLE_PAGE_LABELS = (PRESENTATION_LABEL, "model", "task", "lesson")
BUDGET = {"median": 1.5, "any other": 2.5, "whole page": 3.5, "navigation": 3.0}


@dataclass
class PageResult:
    """One page's timings: first chart, every control's redraws and the floor nudges between them (ms)."""

    title: str
    first_chart: float | None  # seconds; None for a page without a chart
    by_control: dict[str, list[float]]
    floor: list[float]
    loads: list[float] = field(default_factory=list)  # full loads of the page's address (ms)
    floor_loads: list[float] = field(default_factory=list)  # the floor's, in between (ms)
    navigations: list[float] = field(default_factory=list)  # in-app navigations to the page (ms)
    floor_navigations: list[float] = field(default_factory=list)  # the floor app's, in between (ms)

    @staticmethod
    def ratio_cells(times: list[float], floor: list[float]) -> str:
        """Median (ms), the floor's median (ms) and their ratio, as three Markdown cells."""
        if not times or not floor:
            return "n/a | n/a | n/a"
        page, base = statistics.median(times), statistics.median(floor)
        return f"{page:.0f} | {base:.0f} | {page / base:.2f}"

    def ratios(self) -> dict[str, float]:
        """Each control's median redraw divided by the median of this page's floor nudges."""
        floor = statistics.median(self.floor)
        return {label: statistics.median(values) / floor for label, values in self.by_control.items()}


def print_controls(result: PageResult) -> None:
    """One Markdown row per control: ratio to the floor, median (ms), number of timed changes."""
    ratios = result.ratios()
    for label, values in result.by_control.items():
        print(
            f"| {result.title} | {label} | {ratios[label]:.2f} | {statistics.median(values):.0f} | {len(values)} |",
            flush=True,
        )


def print_summary(results: list[PageResult]) -> None:
    """The floor over the whole run, then one Markdown row per page."""
    every_floor = [t for result in results for t in result.floor]
    if every_floor:
        print(
            f"\nFloor (bench/floor_page.py: one slider, one 8 x 8 heatmap): median {statistics.median(every_floor):.0f} ms "
            f"over {len(every_floor)} nudges, range of page medians "
            f"{min(statistics.median(r.floor) for r in results if r.floor):.0f}-"
            f"{max(statistics.median(r.floor) for r in results if r.floor):.0f} ms.\n"
        )
    print(
        "| page | first chart (s) | controls | floor median (ms) | median ratio | worst ratio | worst control "
        "| navigation (ms) | floor navigation (ms) | navigation ratio | load (ms) | floor load (ms) | load ratio |"
    )
    print("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for result in results:
        first = "no chart" if result.first_chart is None else f"{result.first_chart:.2f}"
        ratios = result.ratios() if result.floor else {}
        if ratios:
            worst = max(ratios, key=ratios.get)
            cells = (
                f"{statistics.median(result.floor):.0f} | {statistics.median(ratios.values()):.2f} | "
                f"{ratios[worst]:.2f} | {worst}"
            )
        else:
            cells = "n/a | n/a | n/a | "
        navigation = result.ratio_cells(result.navigations, result.floor_navigations)
        print(
            f"| {result.title} | {first} | {len(ratios)} | {cells} | {navigation} | "
            f"{result.ratio_cells(result.loads, result.floor_loads)} |"
        )


def print_budget(results: list[PageResult]) -> None:
    """One Markdown row per page against the decided budget: the median and the worst of the controls that do not
    replace the whole page, the worst that does, and the median navigation over the run's median floor navigation."""
    floor_navigations = [t for result in results for t in result.floor_navigations]
    run_floor = statistics.median(floor_navigations) if floor_navigations else None
    if run_floor:
        print(f"\nThe run's median floor navigation: {run_floor:.0f} ms over {len(floor_navigations)} navigations.")
    print(
        f"\n| page | median of the other controls [{BUDGET['median']}] | worst other control "
        f"[{BUDGET['any other']}] | worst whole-page control [{BUDGET['whole page']}] | navigation / the run's floor "
        f"navigation [{BUDGET['navigation']}] |"
    )
    print("|---|---:|---|---|---:|")
    for result in results:
        ratios = result.ratios() if result.floor else {}
        whole = {label: r for label, r in ratios.items() if label.split(" (")[0] in WHOLE_PAGE_LABELS}
        other = {label: r for label, r in ratios.items() if label not in whole}
        median = f"{statistics.median(other.values()):.2f}" if other else "-"
        navigation = (
            f"{statistics.median(result.navigations) / run_floor:.2f}" if result.navigations and run_floor else "-"
        )
        print(f"| {result.title} | {median} | {_worst(other)} | {_worst(whole)} | {navigation} |")


def _worst(ratios: dict[str, float]) -> str:
    """The largest ratio and its control, as a Markdown cell ("-" for none)."""
    if not ratios:
        return "-"
    label = max(ratios, key=ratios.get)
    return f"{ratios[label]:.2f} ({label})"
