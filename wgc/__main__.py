"""`python -m wgc`: the same command line as the `wgc` script."""

from wgc.entry import main

raise SystemExit(main())
