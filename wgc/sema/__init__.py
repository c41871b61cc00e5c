"""Semantic analysis: AST -> typed IR, with every static check."""
