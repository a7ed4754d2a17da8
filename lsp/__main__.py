"""`python -m fourfold.lsp`: the language server on stdio, for editors configured without the CLI."""

from __future__ import annotations

import argparse
import sys

from .server import run


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m fourfold.lsp", description="Fourfold language server")
    parser.add_argument("--tcp", type=int, metavar="PORT", help="listen on this TCP port instead of stdio")
    parser.add_argument("--log-file", help="write logs here as well as stderr")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="more logging (-vvv: every message)")
    args = parser.parse_args()
    return run(tcp_port=args.tcp, log_file=args.log_file, verbosity=args.verbose)


if __name__ == "__main__":
    sys.exit(main())
