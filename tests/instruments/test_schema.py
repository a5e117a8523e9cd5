"""The result format: the validator catches what a reader would trip over."""

import json

from tests.instruments.helpers import run_tool, synthetic_result, without
from tilelab.bench import schema


def test_synthetic_result_conforms():
    assert schema.validate(synthetic_result()) == []


def test_missing_and_mistyped_fields_are_named():
    doc = synthetic_result()
    assert any("schema_version" in p for p in schema.validate(without(doc, "schema_version")))
    assert any("git_commit" in p for p in schema.validate(without(doc, "source", "git_commit")))
    doc["cases"][0]["variants"][0]["status"] = "great"
    doc["cases"][0]["variants"][1]["timing"]["samples_ms"] = []
    doc["cases"][1]["flops"] = "many"
    doc["environment"]["gpu"]["sm_count"] = True  # a boolean is not an integer in JSON
    problems = "\n".join(schema.validate(doc))
    assert "$.cases[0].variants[0].status" in problems
    assert "$.cases[0].variants[1].timing" in problems
    assert "$.cases[1].flops" in problems
    assert "$.environment.gpu.sm_count" in problems


def test_wrong_version_is_rejected():
    doc = synthetic_result()
    doc["schema_version"] = schema.SCHEMA_VERSION + 1
    assert schema.validate(doc)


def test_nulls_where_a_value_is_unknown_are_fine():
    doc = synthetic_result()
    doc["source"].update(git_commit=None, git_dirty=None)
    doc["environment"]["gpu"] = None
    doc["ceilings"] = None
    assert schema.validate(doc) == []


def test_schema_subcommand_prints_json_schema():
    done = run_tool("tilelab.bench", "schema")
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert printed["properties"]["schema_version"]["const"] == schema.SCHEMA_VERSION


def test_non_finite_numbers_become_null():
    assert schema.finite({"a": [1.0, float("nan")], "b": float("inf"), "c": "x"}) == {"a": [1.0, None], "b": None,
                                                                                     "c": "x"}
