"""`python -m tilelab.bench` is `kernel-bench`."""

from tilelab.bench.cli import main

raise SystemExit(main())
