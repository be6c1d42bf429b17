"""Analysis of simulated deals: exact probabilities (``exact``), the report's tables
(``report_tables``), figures (``plots``), the HTML report (``html_report``), hand
strength (``strength``) and policy comparisons (``comparisons``: bidding sweeps and
mirrored duels)."""

#: Two-sided 95% normal quantile (every interval of the reports and the CLI).
Z95 = 1.959963984540054
