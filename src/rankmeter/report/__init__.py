"""Reports of a :class:`rankmeter.compare.Comparison`: terminal (rich), Markdown, LaTeX, CSV, HTML.

Each module takes a Comparison and returns text (or a rich renderable); the
Comparison's ``to_*`` methods call them. HTML needs matplotlib (imported lazily).
"""
