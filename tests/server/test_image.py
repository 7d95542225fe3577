"""The server image `langgraph dockerfile` writes from langgraph.json (no Docker daemon needed)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.support.cli import ROOT


@pytest.fixture(scope="module")
def dockerfile(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The Dockerfile's instructions, one line each."""
    out = tmp_path_factory.mktemp("image") / "Dockerfile"
    langgraph = Path(sys.executable).parent / "langgraph"
    subprocess.run(
        [str(langgraph), "dockerfile", "-c", str(ROOT / "langgraph.json"), str(out)],
        check=True,
        capture_output=True,
        env={**os.environ, "LANGGRAPH_CLI_NO_ANALYTICS": "1"},
        timeout=120,
    )
    return [line for line in out.read_text().splitlines() if line.strip()]


def shell_words(line: str) -> list[str]:
    """Split a RUN line as the shell does, keeping redirections and operators apart."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    return list(lexer)


def test_the_image_runs_the_python_langgraph_json_names(dockerfile: list[str]) -> None:
    version = json.loads((ROOT / "langgraph.json").read_text())["python_version"]
    assert version == "3.11"
    [base] = [line for line in dockerfile if line.startswith("FROM ")]
    image, _, tag = base.removeprefix("FROM ").partition(":")
    assert image == "langchain/langgraph-api"
    # "3.11", "3.11-wolfi", or a pinned API version "0.16.7-py3.11".
    assert tag.split("-")[0] == version or tag.endswith(f"-py{version}"), base


def test_the_image_installs_the_local_models_packages(dockerfile: list[str]) -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    local = pyproject["project"]["optional-dependencies"]["local"]
    [install] = [i for i, line in enumerate(dockerfile) if "llama-cpp-python" in line]
    words = shell_words(dockerfile[install])
    # Each requirement reaches pip whole: an unquoted ">=" would be a shell redirection.
    for requirement in local:
        assert requirement in words, (requirement, dockerfile[install])
    assert not {">", ">>", "<"} & set(words)
    # llama-cpp-python builds from source: the compiler is installed before it.
    [compiler] = [i for i, line in enumerate(dockerfile) if "build-essential" in line]
    assert compiler < install


def ignored(path: str, patterns: list[str]) -> bool:
    """Whether Docker leaves `path` out of the build context.

    As Docker reads .dockerignore: a pattern matches the path or one of its folders, `**`
    spans folders, `*` stays within one, and the last matching line wins (`!` keeps).
    """
    parts = path.split("/")
    paths = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    result = False
    for pattern in patterns:
        keep = pattern.startswith("!")
        regex = _regex(pattern.removeprefix("!"))
        if any(regex.fullmatch(candidate) for candidate in paths):
            result = not keep
    return result


def _regex(pattern: str) -> re.Pattern[str]:
    out = ""
    for piece in re.split(r"(\*\*/|\*|\?)", pattern):
        out += {"**/": "(?:.*/)?", "*": "[^/]*", "?": "[^/]"}.get(piece, re.escape(piece))
    return re.compile(out)


def test_dockerignore_keeps_local_state_and_secrets_out_of_the_image() -> None:
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    patterns = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    for path in (
        ".venv/bin/python",
        ".agentloop/workspace.sqlite",
        ".env",
        ".env.production",
        ".git/HEAD",
        ".langgraph_api/store.pckl",
        "core/__pycache__/state.cpython-311.pyc",
        "tests/conftest.py",
    ):
        assert ignored(path, patterns), path
    # What the package install and the server read stays in.
    for path in (
        "pyproject.toml",
        "README.md",
        "graph/builder.py",
        "checkpoints/__init__.py",
        "prompts/compaction.md",
        "app/eval/scenarios/assign-person.yaml",
    ):
        assert not ignored(path, patterns), path
