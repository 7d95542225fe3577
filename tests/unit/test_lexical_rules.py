"""The embedded model's lexical rules are counted, and the count may only go down.

A lexical rule is a regular expression or a list of words written into local_model/'s code:
a call of `re` (compile, search, match, …), a string holding regex syntax that is kept to be
put into one, a literal collection of two or more words, or a string of words split into
one. Each is a rule about the words of a message written by hand, where the examples the
classifier learns from (tools' `asks=`, local_model/texts.toml) are data it is trained on.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOCAL_MODEL = ROOT / "local_model"
LEXICAL_RULES_CEILING = 18
"""The count on 2026-12-04 (42 when it was first counted); lower it as rules go."""
_RE_CALLS = frozenset(
    {"compile", "search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer"}
)
_WORDS = re.compile(r"[a-z' ]+")
_REGEX_SYNTAX = re.compile(r"\(\?|\\[bdswBDSW]|\[\^?\\?\w-|\|\w+\|")


def count_lexical_rules(source: str) -> int:
    """How many lexical rules one module's code holds."""
    tree = ast.parse(source)
    in_re_calls: set[int] = set()
    count = 0
    for node in ast.walk(tree):
        if _is_re_call(node):
            assert isinstance(node, ast.Call)
            count += 1
            in_re_calls |= {id(n) for arg in node.args for n in ast.walk(arg)}
    strings = _module_strings(tree)
    data = _data_lists(tree)
    for node in ast.walk(tree):
        if id(node) in in_re_calls or id(node) in data:
            continue
        count += _is_rule(node, strings)
    return count


def _is_rule(node: ast.AST, strings: dict[str, str]) -> bool:
    """A regex fragment kept in a name, a literal list of words, or a string of words split."""
    if isinstance(node, ast.Assign | ast.AnnAssign):
        return _is_regex_text(node.value)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return _is_word_list(node)
    return _is_split_words(node, strings)


def count_in_local_model() -> int:
    """The lexical rules of every module of local_model/."""
    return sum(
        count_lexical_rules(path.read_text(encoding="utf-8"))
        for path in sorted(LOCAL_MODEL.glob("*.py"))
    )


def _is_re_call(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "re"
        and node.func.attr in _RE_CALLS
    )


def _is_regex_text(value: ast.expr | None) -> bool:
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return bool(_REGEX_SYNTAX.search(value.value))
    if isinstance(value, ast.JoinedStr):
        text = "".join(
            part.value
            for part in value.values
            if isinstance(part, ast.Constant) and isinstance(part.value, str)
        )
        return bool(_REGEX_SYNTAX.search(text))
    return False


def _is_word_list(node: ast.Tuple | ast.List | ast.Set) -> bool:
    """Two or more lowercase words (names of fields, codes and identifiers are not words)."""
    words = [
        e
        for e in node.elts
        if isinstance(e, ast.Constant) and isinstance(e.value, str) and _WORDS.fullmatch(e.value)
    ]
    return len(words) >= 2 and len(words) == len(node.elts)


def _data_lists(tree: ast.Module) -> set[int]:
    """Collections that are data, not rules: `__all__` and the values of a dict literal."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            found |= {id(value) for value in node.values}
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            found.add(id(node.value))
    return found


def _module_strings(tree: ast.Module) -> dict[str, str]:
    found: dict[str, str] = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            found |= {t.id: node.value.value for t in node.targets if isinstance(t, ast.Name)}
    return found


def _is_split_words(node: ast.AST, strings: dict[str, str]) -> bool:
    """`"a b c".split()`, or `.split()` of a module's string of several words."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "split"
        and not node.args
    ):
        return False
    target = node.func.value
    if isinstance(target, ast.Constant) and isinstance(target.value, str):
        return len(target.value.split()) >= 2
    return isinstance(target, ast.Name) and len(strings.get(target.id, "").split()) >= 2


def test_the_lexical_rules_do_not_grow() -> None:
    count = count_in_local_model()
    assert count <= LEXICAL_RULES_CEILING, (
        f"local_model/ holds {count} lexical rules, more than the {LEXICAL_RULES_CEILING} "
        f"recorded: teach the classifier a class from examples instead of adding a rule"
    )


def test_the_counter_sees_each_kind_of_rule() -> None:
    source = """
import re
_A = re.compile(r"(?i)^and\\b")
_B = r"(?:\\d+|one|two)\\s+"
STOP = frozenset({"the", "a", "an"})
_WORDS = "it its they them"
BACK = frozenset(_WORDS.split())
__all__ = ["STOP", "BACK"]
def f(word):
    if re.search(_B, word) or word in ("also", "too"):
        return "x y".split()
    schema = {"required": ["tool", "args"]}
    return schema, ("only one",), ("n_threads", "n_batch"), "plain text, no pattern"
"""
    # re.compile, the fragment _B, the set of three words, _WORDS split, re.search,
    # the tuple of two words and "x y".split(): seven; `__all__`, a dict's values, a tuple of
    # identifiers and the plain strings are not rules.
    assert count_lexical_rules(source) == 7
