"""A small JSON-schema checker for model answers.

Grammar-constrained local answers already follow the schema; remote servers may not
honour `response_format`, so both backends check the parsed value against the subset of
JSON Schema that our prompts use (type, properties, required, enum, items, min/max
length). It returns the first problem as text, or "" when the value fits.
"""

from __future__ import annotations

from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def _type_ok(value: Any, typ: str) -> bool:
    kinds = _TYPES.get(typ)
    if kinds is None:
        return True
    if isinstance(value, bool) and typ in ("integer", "number"):
        return False
    return isinstance(value, kinds)


def check_against_schema(value: Any, schema: dict[str, Any], where: str = "$") -> str:
    typ = schema.get("type")
    if isinstance(typ, list):
        if not any(_type_ok(value, t) for t in typ):
            return f"{where} should be one of {typ}"
    elif isinstance(typ, str) and not _type_ok(value, typ):
        return f"{where} should be {typ}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where} should be one of {schema['enum']}"
    if "const" in schema and value != schema["const"]:
        return f"{where} should be {schema['const']!r}"
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                return f"{where}.{key} is missing"
        for key, sub in (schema.get("properties") or {}).items():
            if key in value and isinstance(sub, dict):
                problem = check_against_schema(value[key], sub, f"{where}.{key}")
                if problem:
                    return problem
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            problem = check_against_schema(item, schema["items"], f"{where}[{i}]")
            if problem:
                return problem
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            return f"{where} has more than {schema['maxItems']} items"
        if "minItems" in schema and len(value) < schema["minItems"]:
            return f"{where} has fewer than {schema['minItems']} items"
    if isinstance(value, str):
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            return f"{where} is longer than {schema['maxLength']}"
        if "minLength" in schema and len(value) < schema["minLength"]:
            return f"{where} is shorter than {schema['minLength']}"
    return ""
