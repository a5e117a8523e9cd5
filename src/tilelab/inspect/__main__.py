"""`python -m tilelab.inspect` is `kernel-inspect`."""

from tilelab.inspect.cli import main

raise SystemExit(main())
