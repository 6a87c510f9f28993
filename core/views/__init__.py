"""Presentation helpers shared by pages, the HTML report and the CLI text: colours, number
formats, chart builders and display tables. Computation lives in ``core``; nothing here
computes a statistic."""
