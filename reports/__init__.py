"""simkit's analysis and report pipeline: result tables -> statistics -> figures -> HTML/Markdown.

Installed as ``simkit.reports``. Reports read run folders (``games.parquet``,
``items.parquet``, ``run.json``) and never run games. ``analysis`` computes the tables,
``verdict`` turns them into sentences, ``summary`` writes a run's summary (text or JSON),
``figures`` draws and ``build`` writes a self-contained report folder. The public home of the
analysis functions is ``simkit.analysis``.
"""
