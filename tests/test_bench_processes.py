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
    busy = "import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end: pass\ntime.sleep(30)"
    child = subprocess.Popen([sys.executable, "-c", busy])
    try:
        deadline = time.monotonic() + 20
        while cpu_seconds(child.pid) < 0.5 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert descendants_cpu_seconds(leave_out=-1) >= 0.5
        assert descendants_cpu_seconds(leave_out=child.pid) < descendants_cpu_seconds(leave_out=-1) - 0.4
    finally:
        child.kill()
        child.wait()


def test_memory_and_load_read_as_numbers():
    resident, peak = memory_mb(os.getpid()), memory_mb(os.getpid(), "VmHWM")
    assert 10 < resident <= peak
    assert len([float(value) for value in load_average().split()]) == 3
