"""Propensity-weighted ranking metrics for missing-not-at-random implicit feedback.

Logged interactions over-represent what was popular or shown: an item the user would
like is only *observed* as a held-out positive with some propensity ``p(u, i)``.
Plain recall and nDCG then reward recommending popular items. The metrics of this
family weight each observed relevant item by ``1 / p`` (inverse propensity scoring,
IPS; Schnabel et al. 2016, Yang et al. 2018), self-normalise those weights (SNIPS:
``snips_*`` per user, ``snips_*_corpus`` over the corpus), or use Jain et al.'s (2016)
propensity-scored precision and nDCG for extreme classification.

==========================  =================================================================
context key                 meaning
==========================  =================================================================
``popularity``              item id -> share of training users who interacted with it
                            (``propensity=popularity``: Yang et al.'s power-law model
                            ``p(i) = popularity(i) ** exponent``; Jain et al.'s model)
``n_users``                 number of training users (Jain et al.'s model)
``propensity``              item id -> observation propensity in (0, 1], or one per (user, item):
                            a table of query, item, propensity columns or ``{(query, item): p}``
                            (``propensity=given``; :mod:`.propensities` reads such a file)
==========================  =================================================================

Every value of these metrics is labelled by its name (``ips_recall``, ``psp``...) and
its parameters (``propensity``, ``exponent``, ``clip``) in every output, like any metric.
:func:`rankmeter.beyond.context_from_train` builds ``popularity`` and ``n_users``.
"""
