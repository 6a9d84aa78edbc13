"""Reports over finished runs: several runs side by side."""
