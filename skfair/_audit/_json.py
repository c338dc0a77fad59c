"""JSON renderer: the report's numbers and labels, machine-readable and stable for diffing."""

from __future__ import annotations

import json

import numpy as np

from skfair._audit._report import Estimate, Fields, GroupSizes, Interval, IntRange

# Decimals kept: enough for every printed digit, few enough to be identical across platforms.
DECIMALS = 10


def _number(value):
    value = float(value)
    if np.isnan(value):
        return None
    value = round(value, DECIMALS)
    return 0.0 if value == 0 else value  # no -0.0


def json_cell(cell):
    """A table cell as JSON: numbers as numbers (NaN as null), intervals as objects."""
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
    if isinstance(cell, (float, np.floating)):
        return _number(cell)
    return str(cell)


def section_json(section):
    """A section as a JSON-ready dict (its ``data`` for figures is left out)."""
    tables, fields = [], {}
    for block in section.blocks:
        if isinstance(block, Fields):
            fields.update({str(key): str(value) for key, value in block.items.items()})
        else:
            tables.append(
                {
                    "attribute": block.name,
                    "header": [str(cell) for cell in block.header],
                    "rows": [[json_cell(cell) for cell in row] for row in block.rows],
                }
            )
    result = {"name": section.name, "title": section.title}
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
    """The report as a JSON document: ``{"skfair_version", "sections": [...]}``."""
    from skfair import __version__

    document = {
        "skfair_version": __version__,
        "sections": [section_json(section) for section in sections],
    }
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
