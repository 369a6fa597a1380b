"""Rating metrics: predicted against true ratings, on (user, item, true, predicted) pairs.

Specs here have ``input="ratings"``: :func:`rankmeter.evaluate_ratings` runs them
(``rankmeter.evaluate`` refuses them and says so). Their contract differs from the
ranking family's:

- ``kernel(batch, per, **params)`` takes a :class:`rankmeter.ratings.RatingsBatch`
  whose rows are grouped by user, by item or as one group, and returns one value
  per group (NaN where the metric is undefined for a group, e.g. a correlation of
  one pair). ``per`` is read by the evaluator, not by the kernel.
- ``per`` (every rating metric has it) names what the reported mean is over:
  ``pair`` = all pairs pooled into one group (the global or *micro* value: MAE as
  usually defined), ``user`` = mean of the per-user values (*macro*, the evaluation notes'
  "Average MAE" for test sets where users are unbalanced), ``item`` = mean of the
  per-item values. The per-user table always holds each user's own value.
- ``reference(true, pred, context=..., **params)`` is the slow, obviously-correct
  value of one group (two lists of numbers), checked against the kernel by the
  invariance suite (``tests/invariance/harness_ratings.py``).
- ``examples`` are :class:`RatingsExample` worked examples, each run as a test.
"""
