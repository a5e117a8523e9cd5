"""Your exercises. Edit these files; check them with python -m learning.check NAME."""
