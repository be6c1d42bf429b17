"""The game interfaces' shared state machine of a deal (``table.Table``); the
interfaces themselves are ``belote_sim.openspiel`` and ``belote_sim.pettingzoo``."""

__all__ = ["table"]
