"""Hypothesis strategies for property-testing statute files and the allocator.

Public, like `xarray.testing.strategies`: legal engineers use them to test their own `.lp` files.
Each strategy takes keyword-only parameters and documents what it covers.
"""
