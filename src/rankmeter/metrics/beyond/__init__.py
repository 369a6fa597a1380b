"""Beyond-accuracy metrics for recommendations: coverage, novelty, diversity, serendipity, exposure.

These metrics read the recommended lists (``Batch.item`` codes over the sorted item
vocabulary ``batch.context["item_ids"]``) and facts about the items that the
judgments do not hold, passed by the caller as ``evaluate(..., context=...)``:

==========================  =================================================================
context key                 meaning
==========================  =================================================================
``popularity``              item id -> share of training users who interacted with the item
``popularity_interactions`` item id -> share of training interactions (``novelty(pop=interactions)``)
``n_users``                 number of training users (ARP counts, cold items)
``n_interactions``          number of training interactions
``catalog``                 the items that could be recommended (by default: the training items)
``all_items``               every item of the data set, train and test (``catalog_coverage(denominator=all_items)``)
``features``                item id -> feature vector (``ild(distance=cosine)``)
``categories``              item id -> set of labels (``ild(distance=jaccard)``, ``miscalibration``)
``train_items``             each user's training items (``pop_lift``, ``miscalibration``, ``pop_rsp``)
``test_items``              each user's relevant test items (``pop_reo``, ``exposure_gap(target=relevant)``)
``item_groups``             item id -> group label: provider, category (``exposure_share(groups=item_groups)``)
==========================  =================================================================

Item tables are a mapping ``{item: value}`` or a pair ``(ids, values)`` (values a 1-D
array, or a 2-D matrix for features). :func:`rankmeter.beyond.context_from_train`
builds them all from training interactions (``test_items`` and ``all_items`` when given the
test ones too); :func:`train_items` builds ``train_items`` and ``test_items`` (``(user ids,
item ids)`` pairs) from training or test interactions on their own.

Per-user metrics (novelty, ARP, ILD, serendipity) are ``level="query"``: one value
per user, and the mean. Whole-corpus metrics (catalog and user coverage,
personalization, Gini, entropy) are ``level="corpus"``: the kernel returns a
:class:`rankmeter.metrics.beyond._state.ItemState`, per-item sums **keyed by item
id** (not by the batch's item codes, which are positions in a vocabulary that differs
between batches when a run is streamed or spread over Spark partitions), merged by
id and finalised against the context.
"""

from ._context import item_matrix
from .profiles import train_items

__all__ = ["item_matrix", "train_items"]
