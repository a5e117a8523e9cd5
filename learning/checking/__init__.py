"""The machinery behind ``python -m learning.check`` (standard library only)."""
