"""Benchmark generation: seeded configs become sampled cases, Jinja narratives and solver-computed gold."""
