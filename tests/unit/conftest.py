"""Unit tests of the tuner count the launches their fake `launch` functions see. With a GPU present the tuner
would first run each launch once more, to collect its kernels for compiling ahead (`tuning.compile_ahead`,
tested on its own with explicit thread counts): one compile thread switches that off."""

import pytest


@pytest.fixture(autouse=True)
def one_compile_thread(monkeypatch):
    monkeypatch.setenv("TILELAB_COMPILE_THREADS", "1")
