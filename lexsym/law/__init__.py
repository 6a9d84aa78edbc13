"""The symbolic core: cases, the rules and clingo, the solver, its Solution, and tools over the law."""
