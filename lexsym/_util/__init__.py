"""Plumbing every layer may use: errors, atomic writes, the console, data files, JSONL."""
