"""The grammar a tool call is written under, and the reading of what the model wrote.

Each argument is narrowed to the values the turn offers: the model chooses well, invents not.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from langchain_core.utils.json_schema import dereference_refs


def call_grammar(
    name: str,
    parameters: Mapping[str, Any],
    choices: Mapping[str, Sequence[Any]],
    taken: Sequence[str] = (),
) -> Any:
    """The GBNF grammar of one call of `name` (argument schema `parameters`).

    Each argument in `choices` may take only the values listed there; others are left out.
    The optional arguments in `taken` are written all the same.
    """
    from llama_cpp.llama_grammar import LlamaGrammar

    schema = dereference_refs(dict(parameters))
    values = [[json.dumps(v, ensure_ascii=False) for v in vs] for vs in choices.values()]
    markers = {f"@@{i}@@": texts for i, texts in enumerate(values)}
    properties = {arg: {"enum": [marker]} for arg, marker in zip(choices, markers, strict=True)}
    required = [arg for arg in [*(schema.get("required") or []), *taken] if arg in properties]
    shape = {"type": "object", "properties": properties, "required": required}
    gbnf = _compiled(json.dumps({"name": name, "args": shape}))
    for marker, texts in markers.items():
        rule = f"value{marker.strip('@')}"
        gbnf = gbnf.replace(_literal(json.dumps(marker)), rule)
        gbnf += f"\n{rule} ::= {' | '.join(_literal(text) for text in texts)}"
    return LlamaGrammar.from_string(gbnf, verbose=False)


@lru_cache(maxsize=256)
def _compiled(shape_json: str) -> str:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    fields = {"tool": {"const": (shape := json.loads(shape_json))["name"]}, "args": shape["args"]}
    call = {"type": "object", "properties": fields, "required": [*fields]}
    return str(json_schema_to_gbnf(json.dumps({**call, "additionalProperties": False})))


def read_call(text: str, name: str) -> dict[str, Any] | None:
    """The call the model wrote, as a LangChain tool call; None when it is not whole."""
    try:
        data = json.loads(text, strict=False)
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict) or data.get("tool") != name:
        return None
    return tool_call(name, data["args"] if isinstance(data.get("args"), dict) else {})


def tool_call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """A LangChain tool call of `name` with `args` and a fresh id."""
    return {"name": name, "args": args, "id": f"call_{uuid.uuid4().hex[:12]}", "type": "tool_call"}


def alternatives(prop: Any) -> list[dict[str, Any]]:
    """The non-null schemas a property may take (its `anyOf`, or itself)."""
    options = prop.get("anyOf", [prop]) if isinstance(prop, dict) else []
    return [a for a in options if isinstance(a, dict) and a.get("type") != "null"]


def _literal(text: str) -> str:
    """A GBNF string literal matching `text` exactly."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
