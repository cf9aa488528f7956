"""`paddlejob-manifests completion bash|zsh|fish`: the shell code for tab completion.

Completion is argcomplete's: the shell calls the program back with the words typed so far,
so completions always match the installed version's flags.
"""

from __future__ import annotations

import argparse
import sys

import argcomplete

from generator.cli import flags

SHELLS = ("bash", "zsh", "fish")
EXAMPLE = """\
examples:
  source <(paddlejob-manifests completion bash)                 # this shell; add it to ~/.bashrc to keep it
  paddlejob-manifests completion zsh > "${fpath[1]}/_paddlejob-manifests"
  paddlejob-manifests completion fish > ~/.config/fish/completions/paddlejob-manifests.fish
"""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "completion",
        help="print the shell code for tab completion",
        description="Print the code that makes SHELL complete paddlejob-manifests' subcommands and flags.",
        epilog=EXAMPLE,
        formatter_class=flags.RawDescriptionHelpFormatter,
    )
    p.add_argument("shell", choices=SHELLS, help="the shell to write the completion code for")
    p.set_defaults(func=cmd_completion)


def cmd_completion(args: argparse.Namespace) -> int:
    sys.stdout.write(argcomplete.shellcode(["paddlejob-manifests"], shell=args.shell))
    return 0
