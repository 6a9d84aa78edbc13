"""Hypothesis strategies for property-testing statute files and the allocator.

Public, like `xarray.testing.strategies`: legal engineers use them to test their own `.lp` files.
Each strategy takes keyword-only parameters and documents what it covers.
Needs hypothesis (`pip install 'lexsym[testing]'`, or the `dev` extra).
"""

try:
    import hypothesis  # noqa: F401
except ImportError:
    raise ModuleNotFoundError(
        "lexsym.testing needs hypothesis, which is not installed: pip install 'lexsym[testing]'"
    ) from None

from lexsym.testing.allocation import allocation_problems as allocation_problems
from lexsym.testing.allocation import random_allocation_problem as random_allocation_problem
from lexsym.testing.domicile import DomicileHistory as DomicileHistory
from lexsym.testing.domicile import cases_without_assets as cases_without_assets
from lexsym.testing.domicile import domicile_histories as domicile_histories
from lexsym.testing.federal_cases import federal_cases as federal_cases
from lexsym.testing.federal_cases import random_federal_case as random_federal_case
from lexsym.testing.optimum import optimal_non_exempt as optimal_non_exempt
from lexsym.testing.optimum import optimal_non_exempt_many as optimal_non_exempt_many
