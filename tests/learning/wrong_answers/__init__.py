"""Plausible wrong answers to the exercises. Each must FAIL (or ERROR) with a useful message."""
