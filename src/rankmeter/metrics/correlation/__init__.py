"""Rank correlation between a system's ranking and the ideal ordering given by graded judgments.

Per query (or user), the ranked items that are also judged are ordered twice: by
the system (its rank order) and by their grades (the ideal order, ties among equal
grades). Spearman's rho, Kendall's tau and the Kendall distance compare the two.
The correlations of predicted against true *ratings* are the ratings family's
``rating_spearman``, ``rating_kendall`` and ``rating_kendall_distance``
(``rankmeter.evaluate_ratings`` also accepts the plain names there).
"""
