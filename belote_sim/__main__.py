"""``python -m belote_sim`` runs the command-line interface."""

import sys

from belote_sim.cli import main

__all__: list[str] = []

sys.exit(main())
