"""Case and table files in any shape lexsym reads: its own, or OpenExempt's (a native case record, a
reshaped replay record, a statute file or its folder of statute files), told apart by their fields."""

from __future__ import annotations

from pathlib import Path

from lexsym._util.errors import InputError
from lexsym.interop.openexempt import case_from_openexempt, is_statute_file, table_from_openexempt
from lexsym.interop.openexempt_native import case_from_native, is_native_case
from lexsym.law.case import Case, load_json, parse_case
from lexsym.law.whatif import ExemptionTable, load_table


def load_any_case(path: Path) -> Case:
    """A lexsym case file, or one OpenExempt case record (native or reshaped), solved under lexsym's
    default readings like any other case."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path}: is a directory, not a case file")
    return parse_any_case(load_json(path), str(path), default_id=path.stem)


def parse_any_case(data: object, source: str, default_id: str = "case") -> Case:
    """One parsed case record in any shape `load_any_case` reads (`source` names it in errors; a record
    with no id of its own takes `default_id`)."""
    if is_native_case(data):
        case_id = str(data.get("case_id") or default_id)
        return case_from_native(data, case_id=case_id, source=source, readings={})
    if isinstance(data, dict) and "domicile_history" in data and "domicile" not in data:
        return case_from_openexempt({"case_id": default_id, **data}, readings={}, source=source)
    return parse_case(data, source=source)


def load_any_table(path: Path) -> ExemptionTable:
    """A what-if table file (JSON/YAML), or OpenExempt's statute file or folder of them."""
    path = Path(path)
    if path.is_dir():
        if not any(path.glob("*.json")):
            raise InputError(
                f"{path}: a directory without OpenExempt statute files (*.json); a table is one file"
            )
        return table_from_openexempt(path)
    if path.suffix.lower() == ".json":
        data = load_json(path)
        if is_statute_file(data):
            return table_from_openexempt(path)
        if not (isinstance(data, dict) and "exemptions" in data):
            raise InputError(
                f"{path}: neither a what-if table (name, exemptions; see `lexsym schema table`) nor an "
                "OpenExempt statute file (jurisdiction, statutes)"
            )
    return load_table(path)
