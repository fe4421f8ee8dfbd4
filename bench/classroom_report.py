"""What ``bench/classroom.py`` measured (``Change``, ``Result``), where the server's time went (``--profile``,
py-spy) and the Markdown tables it prints."""

from __future__ import annotations

import contextlib
import datetime
import re
import statistics
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from bench.classroom_tab import RUN_TIMEOUT
from bench.load import p95
from bench.processes import load_average

ROOT = Path(__file__).resolve().parent.parent
FOLLOW_TIMEOUT = 30.0  # s: a follower that has not shown the teacher's view by then counts as an error


@dataclass
class Change:
    kind: str
    latencies: list[float]  # s, teacher's publish -> follower's redraw, followers that made it
    detect: list[float]
    redraw: list[float]
    missing: int
    in_place: int  # followers that took the change in place (no run of their own)
    full_runs: list[int]  # per follower, in the window: runs to the end
    early_runs: list[int]  # per follower, in the window: runs ended early for a rerun (st.rerun, st.switch_page)
    cpu: float  # s, every server process, the whole window
    window: float  # s
    other_url: int  # followers whose URL state, on the teacher's view, is not the teacher's
    fell_out: int  # followers whose caption turned to "Exploring on my own" (they did nothing)
    teacher_failed: bool = False  # the teacher's own run did not finish within RUN_TIMEOUT
    teacher: float = float("nan")  # s, the teacher's input -> the teacher's own script_finished
    panels: list[float] = field(default_factory=list)  # s, the teacher's input -> the teacher's figures shown above
    # a follower's page whose own run opens the teacher's other page


@dataclass
class Result:
    changes: list[Change]
    idle_teacher: float
    teacher_alone: list[float]  # s, the teacher's own runs (heads changes) before any follower joined
    idle: float
    idle_runs_per_second: float  # the followers' runs while nothing changes (none: nothing polls)
    solo: float
    joined: float
    join_errors: int
    errors: int
    exceptions: int
    pressed: int  # "Follow again" pressed for followers that had fallen out
    lost: int
    peaks: list[float]
    bench_cpu: float


# --- where the server's time goes (``--profile``) ---------------------------------------------------------------

PAGE_FRAME = re.compile(r"\((pages/)?[a-z_]+/page\.py:")  # a page's script, as py-spy names it
PARTS = (  # (name, test on a sampled stack); the first that matches takes the sample
    ("the class's live fragment (ui/rooms/follow.py, its st calls)", lambda s: "live (" in s and "follow.py" in s),
    ("the pages' own code (pages/*/page.py and below)", lambda s: PAGE_FRAME.search(s) is not None),
    (
        "app.py and a fragment's wrapping (its container)",
        lambda s: "code_to_exec" in s and "on_script_will_rerun" not in s,
    ),
    ("session state before a run (on_script_will_rerun)", lambda s: "on_script_will_rerun" in s),
    ("a run's other machinery (script thread)", lambda s: "_run_script_thread" in s),
    ("new_session message (theme, config, pages) per run", lambda s: "_create_new_session_message" in s),
    ("a rerun request: new ScriptRunner and thread", lambda s: "handle_backmsg" in s),
    ("other ForwardMsgs on the event loop", lambda s: "_handle_scriptrunner_event_on_event_loop" in s),
    ("the event loop: websockets and the rest", lambda s: "run_forever" in s or "_run_module_as_main" in s),
    ("the rest (websocket writes, stacks py-spy could not read)", lambda s: True),
)


@contextlib.contextmanager
def profiled(servers, name: str, profile: dict[str, Path] | None):
    """py-spy samples of the first app server while the block runs, only threads holding the GIL (the CPU the
    interpreter spends), into ``profile[name]``; nothing when ``profile`` is None."""
    if profile is None:
        yield
        return
    output = Path(tempfile.mkdtemp(prefix="classroom-")) / f"{name}.txt"
    process = subprocess.Popen(
        [
            "py-spy",
            "record",
            "--pid",
            str(servers.apps[0].pid),
            "--gil",
            "--nonblocking",
            "--rate",
            "100",
            "--format",
            "raw",
            "--output",
            str(output),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield
    finally:
        process.send_signal(2)  # py-spy writes its samples on SIGINT
        process.wait(30)
        profile[name] = output


def print_profile(profile: dict[str, Path]) -> None:
    """The samples of each recording by part of the server, as shares."""
    shares = {}
    for name, output in profile.items():
        counts, total = dict.fromkeys(part for part, _ in PARTS), 0
        for line in output.read_text().splitlines() if output.exists() else []:
            stack, _, count = line.rpartition(" ")
            part = next(part for part, test in PARTS if test(stack))
            counts[part] = (counts[part] or 0) + int(count)
            total += int(count)
        shares[name] = (counts, total)
    names = list(shares)
    print(
        "\n| where server A's interpreter time goes | "
        + " | ".join(f"{n} ({shares[n][1]} samples)" for n in names)
        + " |"
    )
    print("|---|" + "---:|" * len(names))
    for part, _ in PARTS:
        print(
            f"| {part} | " + " | ".join(f"{(shares[n][0][part] or 0) / max(1, shares[n][1]):.0%}" for n in names) + " |"
        )


# --- the report -----------------------------------------------------------------------------------------------


def ms(values: list[float], how) -> str:
    return f"{how(values) * 1000:.0f}" if values else "n/a"


def commit() -> str:
    return subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()


def runs_cell(counts: list[int]) -> str:
    """Per-follower counts: their mean, and their range when they differ."""
    low, high = min(counts), max(counts)
    return f"{statistics.mean(counts):.2f}" + (f" ({low}-{high})" if low != high else "")


def report(result: Result, args, load_before: str) -> None:
    followers, changes = args.followers, result.changes
    idle = result.idle - result.idle_teacher  # the followers' share of the idle CPU
    extra = [c.cpu - result.idle * c.window for c in changes]  # a change's CPU less the idle CPU meanwhile
    print(
        f"\n{datetime.date.today().isoformat()}, commit {commit()}: {args.servers} app server(s)"
        f"{' + Redis' if args.servers > 1 else ''}, {followers} followers, {len(changes)} changes of "
        f"{args.changes + 2} planned ({args.changes} of the heads slider, 2 of the page); load average "
        f"{load_before} before, "
        f"{load_average()} after.\n"
    )
    print(
        "| change | teacher's run (ms) | reached | in place | figures first: p95 / max (ms) "
        "| view complete: median (ms) | p95 (ms) | max (ms) | detect p50 / p95 (ms) "
        "| redraw p50 / p95 (ms) "
        "| full runs per follower | ended early per follower | fell out | URL not the teacher's | window (s) "
        "| CPU (s) | CPU less idle (s) |"
    )
    print("|---|---:|---:|---:|---|---:|---:|---:|---|---|---|---|---:|---:|---:|---:|---:|")
    for index, (change, cost) in enumerate(zip(changes, extra), 1):
        kind = change.kind + (f" (the teacher's run took over {RUN_TIMEOUT:.0f} s)" if change.teacher_failed else "")
        first = change.panels or change.latencies
        print(
            f"| {index} {kind} | {change.teacher * 1000:.0f} | {len(change.latencies)}/{followers} | {change.in_place} "
            f"| {ms(first, p95)} / {ms(first, max)} "
            f"| {ms(change.latencies, statistics.median)} | {ms(change.latencies, p95)} "
            f"| {ms(change.latencies, max)} | {ms(change.detect, statistics.median)} / {ms(change.detect, p95)} "
            f"| {ms(change.redraw, statistics.median)} / {ms(change.redraw, p95)} | {runs_cell(change.full_runs)} "
            f"| {runs_cell(change.early_runs)} | {change.fell_out} | {change.other_url} | {change.window:.1f} "
            f"| {change.cpu:.2f} "
            f"| {cost:.2f} |"
        )
    latencies = [x for c in changes for x in c.latencies]
    detect = [x for c in changes for x in c.detect]
    redraw = [x for c in changes for x in c.redraw]
    cost = statistics.median(extra)
    print(
        "\n| app servers | followers | changes | median (ms) | p95 (ms) | max (ms) | detect p95 (ms) "
        "| redraw p95 (ms) | figures first p95 (ms) | errors | teacher's run, heads, median (ms) | alone (ms) | CPU idle: teacher alone / class (s per s) "
        "| followers' runs per s, idle "
        "| CPU per change less idle (s) | per follower (ms) | one rerun alone (ms) | per follower, in reruns alone "
        "| full runs per follower and change | peak RSS (MB) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---|")
    print(
        f"| {args.servers} | {followers} | {len(changes)} | {ms(latencies, statistics.median)} "
        f"| {ms(latencies, p95)} | {ms(latencies, max)} | {ms(detect, p95)} | {ms(redraw, p95)} "
        f"| {ms([x for c in changes for x in (c.panels or c.latencies)], p95)} | {result.errors} "
        f"| {ms([c.teacher for c in changes if not c.teacher_failed and c.kind == 'heads'], statistics.median)} "
        f"| {ms(result.teacher_alone, statistics.median)} "
        f"| {result.idle_teacher:.3f} / {result.idle:.2f} | {result.idle_runs_per_second:.1f} "
        f"| {cost:.2f} | {cost / followers * 1000:.0f} | {result.solo * 1000:.0f} "
        f"| {cost / followers / result.solo if result.solo else float('nan'):.2f} "
        f"| {runs_cell([n for c in changes for n in c.full_runs])} "
        f"| {' / '.join(f'{peak:.0f}' for peak in result.peaks)} |"
    )
    print(
        f"\nJoined: {followers - result.join_errors} of {followers} followers on the teacher's view "
        f"{result.joined:.1f} s after the first opened the link. Errors: followers that missed a change (not on "
        f"the teacher's view within {FOLLOW_TIMEOUT:.0f} s), that fell out of following though they did nothing "
        f'("Exploring on my own"; they then pressed "Follow again" before the next change: '
        f"{result.pressed} presses) or that missed the join; exceptions {result.exceptions}, connections lost "
        f"{result.lost}. Followers doing nothing: {idle:.3f} CPU s per s for {followers}, "
        f"{idle / followers * 1000:.2f} ms per s each. "
        f"The clients (this process) used {result.bench_cpu:.0f} CPU s."
    )
