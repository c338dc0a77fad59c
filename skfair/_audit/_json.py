"""JSON renderer: the report's numbers and labels, machine-readable and stable for diffing.

The document follows the JSON Schema ``audit.schema.json`` next to this module (printed by
``python -m skfair audit --json-schema``); its ``"schema"`` field is the version of that layout,
:data:`SCHEMA_VERSION`, raised whenever a key changes meaning or goes away (new sections, new
keys and new table columns do not raise it).
"""

from __future__ import annotations

import json

import numpy as np

from skfair._audit._report import Estimate, Fields, GroupSizes, Interval, IntRange, PValue

# Decimals kept: enough for every printed digit, few enough to be identical across platforms.
DECIMALS = 10
SCHEMA_VERSION = 1
SCHEMA_FILE = "audit.schema.json"


def json_schema():
    """The JSON Schema of the audit's JSON output, as text."""
    from importlib.resources import files

    return files("skfair._audit").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


def _number(value):
    value = float(value)
    if np.isnan(value):
        return None
    value = round(value, DECIMALS)
    return 0.0 if value == 0 else value  # no -0.0


def json_cell(cell):
    """A table cell as JSON: numbers as numbers (NaN and empty cells as null), intervals as
    objects."""
    if cell is None:
        return None
    if isinstance(cell, Estimate):
        return {"value": _number(cell.value), "low": _number(cell.low), "high": _number(cell.high)}
    if isinstance(cell, Interval):
        return {"low": _number(cell.low), "high": _number(cell.high)}
    if isinstance(cell, IntRange):
        return {"low": int(cell.low), "high": int(cell.high)}
    if isinstance(cell, GroupSizes):
        return {"n_groups": int(cell.n_groups), "smallest": int(cell.smallest)}
    if isinstance(cell, (bool, np.bool_)):
        return bool(cell)
    if isinstance(cell, (int, np.integer)):
        return int(cell)
    if isinstance(cell, PValue):
        # Significant digits: the small values, those that matter, round to 0 in decimals.
        return None if np.isnan(cell) else float(f"{float(cell):.4g}")
    if isinstance(cell, (float, np.floating)):
        return _number(cell)
    return str(cell)


def section_json(section):
    """A section as a JSON-ready dict (its ``data`` and figures are left out)."""
    tables, fields = [], []
    for block in section.blocks:
        if isinstance(block, Fields):
            fields.append(
                {
                    "caption": block.caption,
                    "items": {str(key): str(value) for key, value in block.items.items()},
                }
            )
        else:
            tables.append(
                {
                    "attribute": block.name,
                    "caption": block.caption,
                    "header": [str(cell) for cell in block.header],
                    "rows": [[json_cell(cell) for cell in row] for row in block.rows],
                }
            )
    result = {"name": section.name, "title": section.title, "lead": section.lead}
    if section.error is not None:
        result["error"] = section.error
    if section.message is not None:
        result["message"] = section.message
    if fields:
        result["fields"] = fields
    if tables:
        result["tables"] = tables
    result["notes"] = list(section.notes)
    result["warnings"] = list(section.warnings)
    return result


def render_json(sections):
    """The report as a JSON document: ``{"schema", "skfair_version", "sections": [...]}``."""
    from skfair import __version__

    document = {
        "schema": SCHEMA_VERSION,
        "skfair_version": __version__,
        "sections": [section_json(section) for section in sections],
    }
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
