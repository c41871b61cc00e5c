"""wgc's version, in a module of its own so that any stage may read it without importing the API.

Stage: none (foundation). The package metadata takes the version from here (pyproject.toml:
`tool.hatch.version`), and `wgc.__version__` re-exports it.
"""

__version__ = "0.1.0"
