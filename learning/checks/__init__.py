"""One module per exercise. Each defines PARTS: the named checks the worker runs in order."""
