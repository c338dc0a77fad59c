"""The JSON report validates against its documented, versioned schema.

The schema is checked with a small validator of the JSON Schema keywords it uses (written here,
so that no new dependency is needed); a test makes sure it uses no other keyword, which the
validator would silently ignore.
"""

import contextlib
import io
import json
import math

import pytest

from skfair.__main__ import main
from skfair._audit import SECTIONS
from skfair._audit._json import SCHEMA_VERSION, json_schema

SUPPORTED = {
    "$schema", "$id", "$defs", "$ref", "title", "description",  # fmt: skip
    "type", "const", "required", "additionalProperties", "properties", "items", "anyOf",
    "minimum",
}  # fmt: skip
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: (
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    ),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def errors(value, schema, root, path="$"):
    """The violations of ``schema`` by ``value``: a list of "path: what" strings."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return errors(value, root["$defs"][name], root, path)
    found = []
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[kind](value) for kind in kinds):
            return [f"{path}: {value!r} is not of type {kinds}"]
    if "const" in schema and value != schema["const"]:
        found.append(f"{path}: {value!r} is not {schema['const']!r}")
    if "minimum" in schema and value < schema["minimum"]:
        found.append(f"{path}: {value!r} < {schema['minimum']}")
    if "anyOf" in schema and all(errors(value, option, root, path) for option in schema["anyOf"]):
        found.append(f"{path}: {value!r} matches none of anyOf")
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        found += [f"{path}: {key!r} is missing" for key in schema.get("required", [])
                  if key not in value]  # fmt: skip
        for key, item in value.items():
            if key in properties:
                found += errors(item, properties[key], root, f"{path}.{key}")
            elif schema.get("additionalProperties") is False:
                found.append(f"{path}: {key!r} is not allowed")
            elif isinstance(schema.get("additionalProperties"), dict):
                found += errors(item, schema["additionalProperties"], root, f"{path}.{key}")
    if isinstance(value, list) and "items" in schema:
        for k, item in enumerate(value):
            found += errors(item, schema["items"], root, f"{path}[{k}]")
    return found


def keywords(schema):
    """Every keyword used anywhere in the schema (the names under properties excepted)."""
    used = set()
    if isinstance(schema, dict):
        used |= set(schema)
        for key, value in schema.items():
            if key in ("properties", "$defs"):
                for item in value.values():
                    used |= keywords(item)
            elif key not in ("description", "title", "const"):
                used |= keywords(value)
    elif isinstance(schema, list):
        for item in schema:
            used |= keywords(item)
    return used


SCHEMA = json.loads(json_schema())


def test_the_validator_knows_every_keyword_of_the_schema_and_catches_violations():
    assert keywords(SCHEMA) <= SUPPORTED
    assert SCHEMA["properties"]["schema"]["const"] == SCHEMA_VERSION == 1
    good = {"schema": 1, "skfair_version": "0", "sections": []}
    assert errors(good, SCHEMA, SCHEMA) == []
    section = {"name": "x", "title": "X", "lead": None, "notes": [], "warnings": []}
    bad_cells = dict(section, tables=[{"attribute": None, "caption": None, "header": ["a"],
                                       "rows": [[{"value": 1.0, "low": 0.5}], [[1]]]}])  # fmt: skip
    problems = errors(dict(good, sections=[bad_cells]), SCHEMA, SCHEMA)
    assert len(problems) == 2 and all("anyOf" in problem for problem in problems)
    assert errors(dict(good, schema=2), SCHEMA, SCHEMA) == ["$.schema: 2 is not 1"]
    assert errors(dict(good, extra=0), SCHEMA, SCHEMA) == ["$: 'extra' is not allowed"]
    assert errors({"schema": 1}, SCHEMA, SCHEMA) == [
        "$: 'skfair_version' is missing",
        "$: 'sections' is missing",
    ]


@pytest.fixture(scope="module")
def document(tmp_path_factory, loans_csv):
    folder = tmp_path_factory.mktemp("json")
    loans_csv(folder / "loans.csv", n=500, income_gap=6)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        status = main(
            ["audit", "--data", str(folder / "loans.csv")]
            + ["--target", "approved", "--positive-label", "yes", "--sensitive", "sex", "region"]
            + ["--format", "json", "--quiet"]
        )
    assert status == 0
    return json.loads(printed.getvalue())


def test_every_section_of_the_json_report_follows_the_schema(document):
    assert errors(document, SCHEMA, SCHEMA) == []
    assert document["schema"] == 1
    names = [section["name"] for section in document["sections"]]
    assert names == list(SECTIONS)
    assert all(section["lead"] for section in document["sections"])


def test_the_summary_in_json_names_each_group_verdict_and_reference(document):
    summary = document["sections"][0]
    findings, audited = summary["fields"]
    assert findings["caption"] == "Findings"
    assert list(findings["items"]) == ["sex", "region", "sex & region", "subgroups (error rate)"]
    assert audited["caption"] == "What was audited"
    rules, *tables = summary["tables"]
    assert [row[0] for row in rules["rows"]] == [
        "too few rows", "large gap", "moderate gap", "small gap", "about equal", "unclear",
    ]  # fmt: skip
    assert [table["attribute"] for table in tables] == ["sex", "region", "sex & region"]
    for table in tables:
        assert table["header"][:3] == ["group", "rate", "rows"]
        reference = table["caption"].split("reference group ")[1].split(" (")[0]
        groups = {row[0] for row in table["rows"]}
        for row in table["rows"]:
            group, rate, rows, value, gap, verdict = row
            assert rate in ("selection rate", "TPR", "FPR") and isinstance(rows, int)
            assert value["low"] <= value["value"] <= value["high"]
            if group == reference:
                assert gap is None and verdict == "reference"
            else:
                assert verdict in [rule[0] for rule in rules["rows"]]
        assert len(table["rows"]) == 3 * len(groups)
    assert len({row[0] for row in tables[2]["rows"]}) == 6  # 2 sexes x 3 regions


def test_json_schema_is_printed_by_the_command(capsys):
    assert main(["audit", "--json-schema"]) == 0
    assert json.loads(capsys.readouterr().out) == SCHEMA
