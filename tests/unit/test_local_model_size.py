"""The embedded model's package stays within 1,500 lines of code.

A line of code is a line that holds a token of Python: docstrings count, comments and blank
lines do not. Shortening a docstring is no way under the limit; a rule that goes is.
"""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

LOCAL_MODEL = Path(__file__).resolve().parents[2] / "local_model"
CODE_LINES_LIMIT = 1500
_NOT_CODE = frozenset(
    {
        tokenize.COMMENT,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENDMARKER,
    }
)


def code_lines(source: str) -> int:
    """How many lines of `source` hold code (a string spanning lines counts each of them)."""
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in _NOT_CODE:
            lines.update(range(token.start[0], token.end[0] + 1))
    return len(lines)


def test_the_package_stays_within_its_limit() -> None:
    count = sum(code_lines(p.read_text(encoding="utf-8")) for p in LOCAL_MODEL.glob("*.py"))
    assert count <= CODE_LINES_LIMIT, (
        f"local_model/ holds {count} lines of code, more than {CODE_LINES_LIMIT}: "
        f"make a rule more general, or let the classifier learn it, before adding one"
    )


def test_docstrings_count_and_comments_do_not() -> None:
    source = '''
def f(x):
    """What f does,

    over two more lines.
    """
    # a comment

    return (x
            + 1)  # the sum
'''
    # the def line, the docstring's four lines and the return's two
    assert code_lines(source) == 7
