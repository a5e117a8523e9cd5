"""`tuning.compile_ahead`'s rules that need no GPU (tests/gpu/test_compile_ahead_gpu.py compiles for real)."""

import threading

import pytest
import torch
import triton

from tilelab import tuning
from tilelab.tuning import Config


@pytest.mark.parametrize("setting,threads", [(None, min(tuning.COMPILE_THREADS, 64)), ("1", 1), ("3", 3), ("0", 1)])
def test_compile_threads(setting, threads, monkeypatch):
    monkeypatch.setattr(tuning.os, "cpu_count", lambda: 64)
    if setting is None:
        monkeypatch.delenv("TILELAB_COMPILE_THREADS", raising=False)
    else:
        monkeypatch.setenv("TILELAB_COMPILE_THREADS", setting)
    assert tuning.compile_threads() == threads


def test_a_thread_count_that_is_not_a_number_is_refused(monkeypatch):
    monkeypatch.setenv("TILELAB_COMPILE_THREADS", "many")
    with pytest.raises(ValueError, match="TILELAB_COMPILE_THREADS must be a whole number of threads; got 'many'"):
        tuning.compile_threads()


def test_another_threads_launch_goes_to_the_hook_that_was_there(monkeypatch):
    """The hook is global: only the collecting thread's launches are collected; another thread's reach the
    previous hook (here one that lets it compile), and nothing of theirs is skipped."""
    seen = []
    monkeypatch.setattr(triton.knobs.runtime, "jit_cache_hook", lambda **kwargs: seen.append(kwargs["repr"]))
    found, answers = [], []

    class Info:
        jit_function = "kernel"

    with tuning._launches_only_collected(found):
        hook = triton.knobs.runtime.jit_cache_hook
        worker = threading.Thread(target=lambda: answers.append(hook(key="k", repr="theirs", fn=Info(), compile={
            "specialization_data": "{}"}, is_manual_warmup=False, already_compiled=False)))
        worker.start()
        worker.join()
    assert answers == [None] and seen == ["theirs"] and found == []


def test_no_gpu_or_one_thread_compiles_nothing_and_runs_no_launch(monkeypatch):
    ran = []
    assert tuning.compile_ahead([lambda: ran.append(1)], threads=1) == 0
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert tuning.compile_ahead([lambda: ran.append(1)], threads=4) == 0
    assert ran == []


def test_collecting_swaps_the_hook_and_puts_it_back_even_after_an_error():
    previous = triton.knobs.runtime.jit_cache_hook
    found = []
    with pytest.raises(RuntimeError, match="a launch failed"):
        with tuning._launches_only_collected(found):
            hook = triton.knobs.runtime.jit_cache_hook
            assert hook is not previous and tuning._COLLECTING.get()

            class Info:
                jit_function = "kernel"

            assert hook(key="k", repr="r", fn=Info(), compile={"specialization_data": "{}"}, is_manual_warmup=False,
                        already_compiled=False) is True  # True: Triton neither compiles nor launches
            raise RuntimeError("a launch failed")
    assert found == [("kernel", "{}")]
    assert triton.knobs.runtime.jit_cache_hook is previous and not tuning._COLLECTING.get()


def test_a_launch_being_collected_times_nothing(monkeypatch, tmp_path):
    """A tuner reached from inside a collected launch (nothing runs there) takes its first candidate, untimed and
    unremembered."""
    monkeypatch.setattr(tuning, "_cache", tuning.TuningCache(tmp_path / "t.json"))
    monkeypatch.setattr(tuning.env, "interpreting", lambda: False)
    monkeypatch.setattr(tuning.torch.cuda, "is_current_stream_capturing", lambda: False)
    timed = []
    candidates = [Config(64, 64, 32), Config(128, 64, 32)]
    with tuning._launches_only_collected([]):
        assert tuning.choose("k", candidates, timed.append) == candidates[0]
    assert timed == [] and tuning.cache().get("k") is None
