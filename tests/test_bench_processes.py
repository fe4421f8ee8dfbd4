"""bench/processes.py, the one reader of /proc the benchmarks share, against what Python itself measures."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time

from bench.processes import cpu_seconds, descendants_cpu_seconds, load_average, memory_mb


def test_a_processs_cpu_time_is_what_the_kernel_gives_python():
    before = cpu_seconds(os.getpid())
    end = time.process_time() + 0.3
    while time.process_time() < end:
        pass
    own = resource.getrusage(resource.RUSAGE_SELF)
    after = cpu_seconds(os.getpid())
    assert after - before >= 0.25
    assert abs(after - (own.ru_utime + own.ru_stime)) < 0.1  # clock ticks: 10 ms each


def test_a_childs_cpu_time_counts_and_the_left_out_one_does_not():
    # the child spends 0.52 s of CPU (0.5 s and a clock tick), says so, then waits for its input to close
    busy = (
        "import sys, time\nend = time.process_time() + 0.52\nwhile time.process_time() < end: pass\n"
        "print('spent', flush=True)\nsys.stdin.read()"
    )
    child = subprocess.Popen([sys.executable, "-c", busy], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "spent"
        assert cpu_seconds(child.pid) >= 0.5
        assert descendants_cpu_seconds(leave_out=-1) >= 0.5
        assert descendants_cpu_seconds(leave_out=child.pid) < descendants_cpu_seconds(leave_out=-1) - 0.4
    finally:
        child.stdin.close()
        child.wait(timeout=30)


def test_memory_and_load_read_as_numbers():
    resident, peak = memory_mb(os.getpid()), memory_mb(os.getpid(), "VmHWM")
    assert 10 < resident <= peak
    assert len([float(value) for value in load_average().split()]) == 3
