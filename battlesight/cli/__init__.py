"""The `battlesight` command line: `main` in `main.py` dispatches to one module per sub-command
in `commands/`; `arguments` (the one-line parser, number types), `common` (loading a scene,
tables, JSON) and `look` (the look options of render and replay) are shared by them, and
`errors` holds the error a bad argument raises (one line, exit 2).

Each command is a thin layer over `battlesight.api` and the report builders of
`battlesight.reports`.
"""
