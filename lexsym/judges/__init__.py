"""LLM judges for open answers: the reference judge (LEXam), the rubric judge (KCL), ensembles and
the validation of a judge against expert labels."""
