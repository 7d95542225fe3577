"""Grammars that hold the local model to a tool's argument schema, and the parser of its output."""

from __future__ import annotations

import json
import re
import uuid
from functools import lru_cache
from typing import Any

# Annotation keywords carry no constraint; llama.cpp's schema converter rejects a node that
# has only these, so they are dropped before the grammar is built.
_ANNOTATION_KEYS = frozenset(
    {"title", "description", "default", "examples", "$schema", "$id", "$comment", "deprecated"}
)
_STRUCTURAL_KEYS = frozenset(
    {"type", "anyOf", "oneOf", "allOf", "const", "enum", "properties", "items", "prefixItems"}
)
_BOUND_KEYS = frozenset({"maxLength", "maxItems", "maxProperties"})
_MAX_GRAMMAR_BOUND = 64
_REPLY_START = re.compile(r'^\s*\{\s*"reply"\s*:\s*"')


def answer_schema(tools: list[dict[str, Any]], reply_allowed: bool) -> dict[str, Any]:
    """Return the JSON schema of an answer: a reply or a call of one of `tools`.

    Args:
        tools: The OpenAI tool dicts the model may call.
        reply_allowed: Whether `{"reply": <string>}` is one of the alternatives.

    Returns:
        An `anyOf` of `{"reply": string}` and one `{"tool": <const name>, "args": <its
        parameters>}` per tool, with `$ref`s inlined and annotations dropped so llama.cpp's
        converter accepts it.
    """
    alternatives: list[dict[str, Any]] = []
    if reply_allowed:
        alternatives.append(
            {
                "type": "object",
                "properties": {"reply": {"type": "string", "minLength": 1}},
                "required": ["reply"],
                "additionalProperties": False,
            }
        )
    for tool in tools:
        fn = tool["function"]
        alternatives.append(
            {
                "type": "object",
                "properties": {
                    "tool": {"const": fn["name"]},
                    "args": safe_args_schema(fn.get("parameters") or {}),
                },
                "required": ["tool", "args"],
                "additionalProperties": False,
            }
        )
    return {"anyOf": alternatives}


def safe_args_schema(parameters: dict[str, Any]) -> dict[str, Any]:
    """Return a grammar-safe version of a tool's parameters, or any object if none exists."""
    # The same tools are bound on every call; their trial conversions are worth keeping.
    # Key order is kept: the grammar offers properties in it, and the model, greedy, takes
    # the first it may (a schema's first property is usually the one a message gives).
    schema: dict[str, Any] = json.loads(_grammar_safe(json.dumps(parameters)))
    return schema


@lru_cache(maxsize=256)
def _grammar_safe(parameters_json: str) -> str:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    schema = _simplify(inline_refs(json.loads(parameters_json)))
    if not isinstance(schema, dict) or schema.get("type") not in (None, "object"):
        return json.dumps({"type": "object"})
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    try:
        # Trial conversion: a schema feature the converter lacks must only loosen this
        # tool's arguments, not break the whole turn.
        json_schema_to_gbnf(json.dumps(schema))
    except Exception:
        return json.dumps({"type": "object"})
    return json.dumps(schema)


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Replace local `$ref`s (`#/$defs/...`, `#/definitions/...`) by the schemas they name.

    The tool schema is embedded in a larger one, where its refs would resolve against the
    wrong root; recursive refs become "any value".
    """
    root = schema

    def resolve(ref: str) -> Any:
        node: Any = root
        for part in ref.removeprefix("#/").split("/"):
            if not isinstance(node, dict) or part not in node:
                return {}
            node = node[part]
        return node

    def visit(node: Any, seen: frozenset[str]) -> Any:
        if isinstance(node, list):
            return [visit(item, seen) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            if not ref.startswith("#/") or ref in seen:
                return {}
            target = visit(resolve(ref), seen | {ref})
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            return {**target, **visit(siblings, seen)} if isinstance(target, dict) else target
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in ("$defs", "definitions"):
                continue
            if key == "properties" and isinstance(value, dict):
                # Property names are data: one called "definitions" must survive.
                out[key] = {name: visit(prop, seen) for name, prop in value.items()}
            elif key in ("const", "enum"):
                out[key] = value
            else:
                out[key] = visit(value, seen)
        return out

    result = visit(root, frozenset())
    return result if isinstance(result, dict) else {}


def _simplify(node: Any) -> Any:
    """Drop annotations and turn nodes the grammar converter cannot read into "any value"."""
    if isinstance(node, list):
        return [_simplify(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _ANNOTATION_KEYS:
            continue
        if key in _BOUND_KEYS and isinstance(value, int) and value > _MAX_GRAMMAR_BOUND:
            # llama.cpp unrolls a bounded repeat into one nested rule per step; a bound of
            # 20,000 overflows its parser's stack (a segfault). Generation is capped by
            # max_tokens anyway, and the tool validates the real bound.
            continue
        if key in ("const", "enum", "required"):
            out[key] = value  # values, not schemas
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: _simplify(prop) for name, prop in value.items()}
        else:
            out[key] = _simplify(value)
    all_of = out.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
        # Older pydantic wraps a described ref in a one-item allOf.
        out = {**all_of[0], **{k: v for k, v in out.items() if k != "allOf"}}
    if not (_STRUCTURAL_KEYS & out.keys()) and "pattern" not in out:
        return {}
    return out


# --- output parsing ------------------------------------------------------------------------


def parse_tool_output(text: str, tool_names: set[str]) -> tuple[str, dict[str, Any] | None]:
    """Turn a grammar-constrained generation into reply text or one tool call.

    Args:
        text: The raw generation, normally `{"reply": ...}` or `{"tool": ..., "args": ...}`.
        tool_names: The tools the model was allowed to call.

    Returns:
        `(content, tool_call)`; a generation cut off by the token cap keeps what can be
        salvaged of its reply text and otherwise gives empty content. It never raises.
    """
    try:
        # The grammar lets raw control characters into strings; strict=False accepts them.
        data = json.loads(text, strict=False)
    except json.JSONDecodeError:
        return _salvage_reply(text), None
    if not isinstance(data, dict):
        return "", None
    name = data.get("tool")
    if isinstance(name, str) and name in tool_names:
        args = data.get("args")
        return "", tool_call(name, args if isinstance(args, dict) else {})
    reply = data.get("reply")
    return (reply.strip() if isinstance(reply, str) else ""), None


def tool_call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """A LangChain tool call of `name` with `args` and a fresh id."""
    return {"name": name, "args": args, "id": f"call_{uuid.uuid4().hex[:12]}", "type": "tool_call"}


def _salvage_reply(text: str) -> str:
    """Recover the reply text of a `{"reply": "...` generation that was cut off."""
    match = _REPLY_START.match(text)
    if match is None:
        return ""
    body = text[match.end() :]
    # Trim a few trailing characters (a half escape, a closing quote without brace) until
    # what is left decodes as a JSON string.
    for cut in range(min(len(body), 8) + 1):
        try:
            value = json.loads('"' + body[: len(body) - cut] + '"', strict=False)
        except json.JSONDecodeError:
            continue
        return str(value).strip()
    return ""
