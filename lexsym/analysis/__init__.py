"""Results as data: one tidy table over run directories (`load_runs` for a pandas DataFrame, `load_table`
for plain rows), its columns (`describe`), and exports (`export_table`)."""

from lexsym.analysis.columns import describe
from lexsym.analysis.export import FORMATS, export_table
from lexsym.analysis.table import ResultsTable, load_runs, load_table

__all__ = ["FORMATS", "ResultsTable", "describe", "export_table", "load_runs", "load_table"]
