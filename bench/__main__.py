"""Run the benchmarks and record them in bench/RESULTS.md: `python -m bench [NAME ...]`.

With no names every benchmark runs (`make bench`); with names only those run and the other
sections of RESULTS.md are kept. `--list` shows the names.
"""

from __future__ import annotations

import argparse
import sys

from bench import suite


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments and run; return the exit code."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("names", nargs="*", metavar="NAME", help=", ".join(suite.NAMES))
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    args = parser.parse_args(argv)
    if args.list:
        for benchmark in suite.BENCHMARKS:
            print(f"{benchmark.name:<12} {benchmark.about}")
        return 0
    try:
        names = suite.select(args.names)
    except ValueError as exc:
        parser.error(str(exc))
    print(f"recorded in {suite.run(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
