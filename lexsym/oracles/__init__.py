"""Independent second implementations used to test the core: MILP, Prolog, greedy baseline."""
