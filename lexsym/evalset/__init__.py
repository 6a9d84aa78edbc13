"""Eval sets: several models over several task sets (and their judges) into one directory tree, one report."""
