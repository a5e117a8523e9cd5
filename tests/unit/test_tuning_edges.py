"""`tilelab.tuning` at its edges: what `prune` keeps and falls back to, the widest tiles worth trying, which
tiles count as 1.5 powers of two wide, a cache file that cannot be read or written, and a tuning round in which
no candidate compiles.

Each rule here decides which kernels a user's problem can get, or whether a first call survives a broken or
read-only cache; none was pinned by a test before (a mutation of each went unnoticed). Expected values are
worked out by hand from the docstrings, never by calling the function under test.
"""

import json

import pytest
import torch
import triton

from tilelab import tuning
from tilelab.tuning import Config


@pytest.mark.parametrize("m, n, expected", [
    (16, 4096, (32, 8192)),  # twice the edge: a 32-row tile still fits 16 rows
    (1, 1, (32, 32)),  # the floor of 16, doubled
    (17, 300, (64, 1024)),  # 17 rounds up to 32, 300 to 512
    (128, 129, (256, 512)),
])
def test_padding_limits_are_twice_the_edge_rounded_up_to_a_power_of_two(m, n, expected):
    assert tuning.padding_limits(m, n) == expected


def test_prune_keeps_a_tile_twice_the_problem_and_drops_one_wider():
    small, double, quadruple = Config(16, 64, 32), Config(32, 64, 32), Config(64, 64, 32)
    # 16 rows: 32-row tiles are still worth trying, 64-row ones are mostly padding.
    assert tuning.prune([quadruple, double, small], m=16, n=64, element_size=2) == [double, small]
    # The same rule along N: 40 columns round up to 64, so tiles up to 128 wide are kept.
    wide, wider = Config(16, 128, 32), Config(16, 256, 32)
    assert tuning.prune([wider, wide], m=16, n=40, element_size=2) == [wide]


def test_prune_falls_back_to_the_smallest_tile_when_none_fits():
    # No candidate fits a 1-byte budget: the one with the fewest elements per tile, whatever the list's order.
    candidates = [Config(128, 128, 64), Config(32, 64, 32), Config(64, 32, 128), Config(256, 128, 64)]
    assert tuning.prune(candidates, 4096, 4096, 2, shared_budget=1) == [Config(32, 64, 32)]


@pytest.mark.parametrize("block_n, wide", [
    (48, True), (96, True), (192, True), (384, True),  # 3 x 16, 32, 64, 128
    (24, False),  # 3 x 8, but narrower than the kernel's smallest 16-wide half
    (64, False), (128, False), (144, False),  # powers of two; 3 x 48 (48 is not a power of two)
])
def test_is_wide_is_three_times_a_power_of_two_from_48(block_n, wide):
    assert tuning.is_wide(Config(128, block_n, 64)) is wide


# Damaged files: not JSON, not an object, "entries" not an object (these three raised AttributeError in `get`
# and TypeError in `put` until a mutation round found them), an entry or its config not an object, a config
# missing a field. (A field this version lacks is left out by `Config.from_dict`: a newer cache still reads.)
DAMAGED = ["[1, 2, 3]", '"entries"', "{not json", "", '{"entries": []}', '{"entries": [["k", {}]]}',
           '{"entries": "k"}', '{"entries": {"k": 3}}', '{"entries": {"k": {"timings_ms": {}}}}',
           '{"entries": {"k": {"config": [128, 128, 64]}}}',
           '{"entries": {"k": {"config": {"block_m": 64}}}}']


@pytest.mark.parametrize("content", DAMAGED)
def test_a_damaged_cache_file_is_ignored_and_rewritten(tmp_path, content):
    path = tmp_path / "tuning.json"
    path.write_text(content)
    cache = tuning.TuningCache(path)  # no exception: a damaged cache must not break the first call
    assert cache.get("k") is None
    cache.put("k", tuning.FIXED, {"x": 1.0})  # and the next winner replaces it with a readable table
    assert json.loads(path.read_text())["entries"]["k"]["config"] == tuning.FIXED.as_dict()
    assert tuning.TuningCache(path).get("k") == tuning.FIXED


def test_an_unreadable_entry_of_the_users_falls_back_to_the_shipped_one(tmp_path):
    cache = tuning.TuningCache(tmp_path / "tuning.json")
    key, shipped = next(iter(cache._shipped.items()))
    path = tmp_path / "damaged.json"
    path.write_text(json.dumps({"entries": {key: {"config": {"block_m": 64}}}}))  # block_n, block_k missing
    assert tuning.TuningCache(path).get(key) == Config.from_dict(shipped["config"])


def test_a_cache_that_cannot_be_written_still_remembers_in_memory(tmp_path):
    # The cache's folder is a file: creating it fails (OSError), as in a read-only home. Tuning goes on.
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    cache = tuning.TuningCache(blocker / "tuning.json")
    cache.put("k", tuning.FIXED, {"x": 1.0})
    assert cache.get("k") == tuning.FIXED
    assert blocker.read_text() == ""


def test_when_no_candidate_compiles_the_last_is_returned_and_nothing_is_remembered(monkeypatch, tmp_path):
    # The candidates run from largest to smallest: with none measurable the smallest is the likeliest to run.
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setattr(tuning, "_cache", tuning.TuningCache(tmp_path / "t.json"))
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: False)
    candidates = [Config(128, 128, 64), Config(64, 64, 64), Config(32, 32, 64)]
    tried = []

    def launch(config):
        tried.append(config)
        raise triton.runtime.errors.OutOfResources(300000, 232448, "shared memory")

    monkeypatch.setattr(tuning, "measure_ms", lambda run, samples=16: run())
    assert tuning.choose("k", candidates, launch) == candidates[-1]
    assert sorted(tried, key=candidates.index) == candidates  # each tried once, then dropped
    assert tuning.cache().get("k") is None and not (tmp_path / "t.json").exists()  # asked again next time
