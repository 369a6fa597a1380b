"""Recommender-system evaluation: the experiment pipeline and what it uses.

* :mod:`rankmeter.recsys.pipeline`: :func:`experiment`, the whole loop (load, split, fit,
  recommend, validate, evaluate, compare); :mod:`~rankmeter.recsys.result` its
  :class:`ExperimentResult`; :mod:`~rankmeter.recsys.validation` the checks of each
  recommender's output; :mod:`~rankmeter.recsys.config` the TOML configuration and its
  schema; :mod:`~rankmeter.recsys.loading` the inputs; :mod:`~rankmeter.recsys.splitting`
  the split dispatch; :mod:`~rankmeter.recsys.experiment` all of these in one import.
* :mod:`rankmeter.recsys.recommenders`: reference recommenders and user-supplied lists;
  :mod:`~rankmeter.recsys.sampled`: sampled-negative evaluation;
  :mod:`~rankmeter.recsys.datasets`: generated data sets; :mod:`~rankmeter.recsys.beyond`:
  the context of the beyond-accuracy metrics from training interactions.

The report is rendered by :mod:`rankmeter.report.experiment`. Nothing is imported here, so
``import rankmeter`` stays light.
"""
