"""The result file's format: a JSON Schema (draft 2020-12 subset) and a small validator for it.

Bump SCHEMA_VERSION on any change a reader would notice; `kernel-bench
report` refuses versions it does not know. docs/BENCHMARKING.md explains
every field.
"""

import math

SCHEMA_VERSION = 1

_NUM = {"type": "number"}
_NUM_OR_NULL = {"type": ["number", "null"]}
_STR_OR_NULL = {"type": ["string", "null"]}
_INT_OR_NULL = {"type": ["integer", "null"]}

TIMING = {
    "type": "object",
    "required": ["mode", "cache", "samples_ms", "calls_per_sample", "input_sets",
                 "median_ms", "min_ms", "max_ms"],
    "properties": {
        "mode": {"enum": ["events", "graph"]},
        "cache": {"enum": ["warm", "cold"]},
        "samples_ms": {"type": "array", "items": _NUM, "minItems": 1},
        "calls_per_sample": {"type": "integer", "minimum": 1},
        "input_sets": {"type": "integer", "minimum": 1},
        "median_ms": _NUM, "min_ms": _NUM, "max_ms": _NUM, "mean_ms": _NUM, "stdev_ms": _NUM,
        "p10_ms": _NUM, "p90_ms": _NUM,
    },
}

VARIANT = {
    "type": "object",
    "required": ["name", "status", "error", "tolerance", "message", "plan", "timing",
                 "tflops", "gbps", "speedup_vs_torch", "roofline_fraction"],
    "properties": {
        "name": {"type": "string"},
        "baseline": {"type": "boolean"},
        "status": {"enum": ["ok", "wrong", "unsupported", "failed"]},
        "error": _NUM_OR_NULL,
        "tolerance": _NUM,
        "message": _STR_OR_NULL,
        "plan": {"type": ["object", "null"]},
        "timing": {"oneOf": [{"type": "null"}, TIMING]},
        "timing_error": _STR_OR_NULL,
        "tflops": _NUM_OR_NULL,
        "gbps": _NUM_OR_NULL,
        "speedup_vs_torch": _NUM_OR_NULL,
        "roofline_fraction": _NUM_OR_NULL,
    },
}

CASE = {
    "type": "object",
    "required": ["op", "dims", "shape", "dtype", "precision", "flops", "bytes", "intensity", "order",
                 "variants"],
    "properties": {
        "op": {"type": "string"},
        "metric": {"enum": ["tflops", "gbps"]},
        "dims": {"type": "object"},
        "shape": {"type": "array", "items": {"type": "integer", "minimum": 0}},
        "dtype": {"type": "string"},
        "precision": _STR_OR_NULL,
        "flops": {"type": "integer", "minimum": 0},
        "bytes": {"type": "integer", "minimum": 0},
        "intensity": _NUM_OR_NULL,
        "order": {"type": "integer", "minimum": 0},
        "roofline_bound_tflops": _NUM_OR_NULL,
        "variants": {"type": "array", "items": VARIANT, "minItems": 1},
    },
}

CEILINGS = {
    "type": ["object", "null"],
    "required": ["source", "compute_tflops", "memory_gbps"],
    "properties": {
        "source": {"type": "string"},
        "compute_tflops": {"type": "object"},
        "memory_gbps": _NUM_OR_NULL,
    },
}

RESULT = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "kernel-bench result",
    "type": "object",
    "required": ["schema_version", "tool", "created_utc", "command", "argv", "settings", "environment",
                 "source", "ceilings", "cases", "summary"],
    "properties": {
        "schema_version": {"const": SCHEMA_VERSION},
        "tool": {"const": "kernel-bench"},
        "created_utc": {"type": "string"},
        "command": {"type": "string"},
        "argv": {"type": "array", "items": {"type": "string"}},
        "settings": {
            "type": "object",
            "required": ["ops", "dtypes", "precision", "timing", "cache", "warmup", "samples", "seed",
                         "check_only", "compile", "variants", "device"],
            "properties": {
                "ops": {"type": "array", "items": {"type": "string"}},
                "dtypes": {"type": "array", "items": {"type": "string"}},
                "precision": _STR_OR_NULL,
                "timing": {"enum": ["events", "graph"]},
                "cache": {"enum": ["warm", "cold"]},
                "warmup": {"type": "integer", "minimum": 0},
                "samples": {"type": "integer", "minimum": 1},
                "seed": {"type": "integer"},
                "check_only": {"type": "boolean"},
                "compile": {"type": "boolean"},
                "variants": {"type": ["array", "null"]},
                "graph_calls": _INT_OR_NULL,
                "rounds": {"type": "integer", "minimum": 1},
                "device": {"type": "string"},
                "tune": {"type": "boolean"},
                "torch_kernels": {"type": "boolean"},
            },
        },
        "environment": {
            "type": "object",
            "required": ["gpu", "software", "triton_interpret"],
            "properties": {
                "gpu": {
                    "type": ["object", "null"],
                    "required": ["name", "capability", "sm_count", "l2_bytes"],
                    "properties": {
                        "name": {"type": "string"},
                        "capability": {"type": "string"},
                        "sm_count": {"type": "integer"},
                        "l2_bytes": _INT_OR_NULL,
                        "driver_version": _STR_OR_NULL,
                        "sm_clock_mhz": _NUM_OR_NULL,
                        "max_sm_clock_mhz": _NUM_OR_NULL,
                    },
                },
                "software": {
                    "type": "object",
                    "required": ["python", "torch", "cuda", "triton", "numpy"],
                    "properties": {k: _STR_OR_NULL for k in ("python", "torch", "cuda", "triton", "numpy")},
                },
                "triton_interpret": {"type": "boolean"},
            },
        },
        "source": {
            "type": "object",
            "required": ["git_commit", "git_dirty", "package_sha256", "package_files"],
            "properties": {
                "git_commit": _STR_OR_NULL,
                "git_dirty": {"type": ["boolean", "null"]},
                "package_sha256": {"type": "string", "minLength": 64, "maxLength": 64},
                "package_files": {"type": "integer", "minimum": 1},
            },
        },
        "ceilings": CEILINGS,
        "cases": {"type": "array", "items": CASE},
        "summary": {
            "type": "object",
            "required": ["cases", "checked", "timed", "by_status"],
            "properties": {
                "cases": {"type": "integer"},
                "checked": {"type": "integer"},
                "timed": {"type": "integer"},
                "by_status": {"type": "object"},
                "aborted": _STR_OR_NULL,
            },
        },
    },
}

def finite(value):
    """`value` with every NaN or infinity replaced by None: JSON has no such numbers."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


_TYPES = {
    "object": dict, "array": list, "string": str, "boolean": bool, "null": type(None),
    "integer": int, "number": (int, float),
}


def _is_type(value, name: str) -> bool:
    if name in ("integer", "number") and isinstance(value, bool):
        return False  # JSON booleans are not numbers, though Python's are ints
    return isinstance(value, _TYPES[name])


def validate(document, schema: dict = RESULT, where: str = "$") -> list[str]:
    """Every way `document` breaks `schema`, as 'path: problem' lines; empty when it conforms.

    Supports the keywords the schemas here use: type, enum, const, required,
    properties, items, minItems, minimum, minLength, maxLength, oneOf.
    """
    problems: list[str] = []
    if "oneOf" in schema:
        matches = [s for s in schema["oneOf"] if not validate(document, s, where)]
        if len(matches) != 1:
            problems.append(f"{where}: matches {len(matches)} of the oneOf alternatives, not exactly 1")
        return problems
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is_type(document, n) for n in names):
            return [f"{where}: expected {' or '.join(names)}, got {type(document).__name__}"]
    if "const" in schema and document != schema["const"]:
        problems.append(f"{where}: expected {schema['const']!r}, got {document!r}")
    if "enum" in schema and document not in schema["enum"]:
        problems.append(f"{where}: {document!r} is not one of {schema['enum']}")
    if isinstance(document, (int, float)) and not isinstance(document, bool) and "minimum" in schema:
        if document < schema["minimum"]:
            problems.append(f"{where}: {document} < minimum {schema['minimum']}")
    if isinstance(document, str):
        if len(document) < schema.get("minLength", 0):
            problems.append(f"{where}: shorter than {schema['minLength']}")
        if "maxLength" in schema and len(document) > schema["maxLength"]:
            problems.append(f"{where}: longer than {schema['maxLength']}")
    if isinstance(document, dict):
        for key in schema.get("required", []):
            if key not in document:
                problems.append(f"{where}: missing required {key!r}")
        for key, sub in schema.get("properties", {}).items():
            if key in document:
                problems.extend(validate(document[key], sub, f"{where}.{key}"))
    if isinstance(document, list):
        if len(document) < schema.get("minItems", 0):
            problems.append(f"{where}: fewer than {schema['minItems']} items")
        if "items" in schema:
            for i, item in enumerate(document):
                problems.extend(validate(item, schema["items"], f"{where}[{i}]"))
    return problems
