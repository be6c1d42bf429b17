"""The ``belote-sim`` command line (the command list is ``commands_doc.COMMANDS``,
shown by ``belote-sim --help``).

Outputs are crash-safe: a file under the output name is always complete; Ctrl-C or
SIGTERM keeps the finished chunks and says how to resume (docs/guide/simulate.md,
"Interrupted runs").
"""

from belote_sim.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
