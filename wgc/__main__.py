"""`python -m wgc`: the same command line as the `wgc` script."""

from wgc.cli import main

raise SystemExit(main())
