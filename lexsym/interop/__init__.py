"""Formats of other tools, read and written: OpenExempt."""
