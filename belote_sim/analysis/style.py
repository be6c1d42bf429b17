"""The report's style sheet, shared by its pages (``index.html``, ``atlas.html``)."""

from __future__ import annotations

__all__ = ["STYLE"]

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 1040px;
       margin: 1.5em auto; color: #1a202c; line-height: 1.5; padding: 0 1.2em; }
h1 { border-bottom: 3px solid #2b6cb0; padding-bottom: .25em; margin-bottom: .4em; }
h2 { margin-top: 2.2em; color: #2b6cb0; border-bottom: 1px solid #e2e8f0; }
h3 { margin-bottom: .3em; }
p.lead { font-size: 1.05em; }
.cards { display: flex; flex-wrap: wrap; gap: .8em; margin: 1em 0; }
.card { border: 1px solid #cbd5e0; border-radius: 8px; padding: .5em .9em; min-width: 9em;
        background: #f7fafc; }
.card b { display: block; font-size: 1.6em; color: #2b6cb0; }
.card span { font-size: 12px; color: #4a5568; }
nav ol { columns: 2; font-size: 15px; }
table { border-collapse: collapse; font-size: 13px; margin: .6em 0 1.2em; }
th, td { border: 1px solid #cbd5e0; padding: 3px 8px; text-align: right; }
th { background: #edf2f7; font-weight: 600; }
td.l, th.l { text-align: left; }
td .ci, td .n, td .net { display: block; font-size: 11px; color: #4a5568; }
td.small { color: #a0aec0; background: #fafafa; }
td.small .ci, td.small .net { display: none; }
.prov td { text-align: left; }
figure { margin: 1em 0; display: inline-block; vertical-align: top; max-width: 100%; }
figure img { max-width: 100%; height: auto; }
.wrap { overflow-x: auto; max-width: 100%; }
figcaption { font-size: 13px; color: #4a5568; max-width: 640px; }
.note { font-size: 13px; color: #4a5568; }
caption { font-weight: 600; font-size: 14px; text-align: left; padding: .2em 0; }
td .net, td .ci { white-space: nowrap; }
@media (max-width: 600px) {
  body { padding: 0 .6em; margin-top: .8em; }
  h1 { font-size: 1.6em; }
  h2 { font-size: 1.3em; margin-top: 1.6em; }
  nav ol { columns: 1; }
  .cards { gap: .5em; }
  .card { min-width: 0; flex: 1 1 40%; padding: .4em .6em; }
  .card b { font-size: 1.3em; }
  table { font-size: 12px; }
  th, td { padding: 2px 5px; }
}
"""
