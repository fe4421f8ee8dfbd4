"""The one caching policy (ui/cache.py): computations are shared, read-only and bounded by bytes."""

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from ui import cache
from ui.cache import computation, read_only, size_in_bytes


@dataclass(frozen=True)
class _Pair:
    first: np.ndarray
    second: dict


def test_an_entry_counts_the_bytes_of_the_arrays_and_tables_it_holds():
    pair = _Pair(np.zeros((10, 10), np.float32), {"a": np.zeros(5, np.float64), "b": b"xyz"})
    assert size_in_bytes(pair) == 400 + 40 + 3 + 2 * cache.SMALL_OBJECT_BYTES  # the arrays, the bytes, two holders
    table = pd.DataFrame({"x": np.arange(1000, dtype=np.int64)})
    assert 8000 <= size_in_bytes(table) < 9000
    assert size_in_bytes(7) == cache.SMALL_OBJECT_BYTES


def test_read_only_reaches_every_array():
    pair = read_only(_Pair(np.zeros(3), {"a": [np.ones(2)]}))
    for array in (pair.first, pair.second["a"][0]):
        with pytest.raises(ValueError):
            array[0] = 5.0


_calls = []


@computation
def _squares(n: int) -> np.ndarray:
    _calls.append(n)
    return np.arange(n, dtype=np.float64) ** 2


def test_a_computation_runs_once_and_hands_every_caller_the_same_read_only_result():
    first = _squares(7)
    assert _squares(7) is first and _calls.count(7) == 1
    assert list(first[:3]) == [0.0, 1.0, 4.0]
    with pytest.raises(ValueError):
        first[0] = 1.0
    assert _squares(8) is not first and _calls.count(8) == 1


def test_the_cache_is_bounded_by_bytes_not_by_entries(monkeypatch):
    monkeypatch.setattr(cache, "COMPUTATIONS", cache.cachetools.LRUCache(maxsize=10_000, getsizeof=size_in_bytes))
    big = _squares(1000)  # 8000 bytes: fits alone
    _squares(1001)  # 8008 more: the first must go
    assert cache.COMPUTATIONS.currsize <= 10_000
    assert _squares(1000) is not big
    huge = _squares(5000)  # larger than the whole cache: returned, not kept
    assert _squares(5000) is not huge and huge.shape == (5000,)


# Files that still call Streamlit's caches themselves: timings measured on the server (not numbers of a
# model or a setting), and the knock-out sweep's store, filled while its progress bar is drawn.
OWN_CACHES = {"pages/self_attention/why_attention.py", "pages/generate/costs.py", "pages/experiments/subject.py"}


def test_caching_goes_through_ui_cache():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    for folder in ("ui", "pages", "analysis", "viz"):
        for path in sorted((root / folder).rglob("*.py")):
            name = path.relative_to(root).as_posix()
            if name == "ui/cache.py" or name in OWN_CACHES:
                continue
            text = path.read_text(encoding="utf-8")
            for mechanism in ("st.cache_data", "st.cache_resource", "functools.cache", "lru_cache", "cachetools"):
                assert mechanism not in text, f"{name} uses {mechanism}: use ui.cache (resource, computation, figure)"


def test_a_cached_table_changed_by_one_caller_is_unchanged_for_the_next():
    """pandas tables have no read-only flag: each caller gets its own copy, which shares the data until written."""

    @computation
    def table(rows: int):
        frame = pd.DataFrame({"head": range(1, rows + 1), "score": [0.5] * rows})
        return frame, {"also": frame["score"]}

    first, extra = table(3)
    first["added"] = 1  # a new column
    first.loc[0, "score"] = 9.0  # a cell
    extra["also"].iloc[1] = 7.0
    again, extra_again = table(3)
    assert list(again.columns) == ["head", "score"] and again["score"].tolist() == [0.5] * 3
    assert extra_again["also"].tolist() == [0.5] * 3
    assert np.shares_memory(again["head"].to_numpy(), table(3)[0]["head"].to_numpy())  # no copy of the data
