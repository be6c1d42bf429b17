"""Analysis of simulated deals: exact probabilities (``exact``), the report's tables
(``report_tables``), figures (``plots``), the HTML report (``html_report``), hand
strength (``strength``) and policy comparisons (``comparisons``: bidding sweeps and
mirrored duels).  Intervals come from ``belote_sim.stats``."""

__all__: list[str] = []
