"""One deal: replay a recorded deal, score it, list its declarations, play it out,
count its legal sequences (perft), solve it double-dummy, and choose a card for one
seat (the agent).  Built on ``cards``, ``rules``, ``policies`` and the kernels."""

__all__: list[str] = []
