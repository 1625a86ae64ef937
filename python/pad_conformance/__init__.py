"""pad-conformance's Python package (placeholder until the worker helper lands)."""
