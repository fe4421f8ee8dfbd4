"""What the benchmarks read of a process from Linux's /proc: its CPU time, its memory, its descendants' CPU time,
and the machine's load average. One reader each, shared by every bench."""

from __future__ import annotations

import os
from pathlib import Path


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far, s (/proc/<pid>/stat fields 14 and 15, in clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def descendants_cpu_seconds(leave_out: int) -> float:
    """User + system CPU time so far of this process's descendants that are still running, but for ``leave_out``
    (a server this process started) and its own: Playwright's driver and Chromium's processes, s."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    mine, grew = {os.getpid()}, True
    while grew:
        found = {pid for pid, parent in parents.items() if parent in mine} - mine
        mine, grew = mine | found, bool(found)
    total = 0.0
    for pid in mine - {os.getpid(), leave_out}:
        try:
            total += cpu_seconds(pid)
        except OSError:
            pass
    return total


def memory_mb(pid: int, field: str = "VmRSS") -> float:
    """A memory line of /proc/<pid>/status in MB: ``VmRSS`` (resident now) or ``VmHWM`` (resident at its peak)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/{pid}/status")


def reset_peak_memory(pid: int) -> bool:
    """Restart the kernel's VmHWM from the current RSS (``5`` into clear_refs); False where that is not allowed."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def load_average() -> str:
    """The machine's load averages over 1, 5 and 15 minutes, as /proc/loadavg writes them."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])
