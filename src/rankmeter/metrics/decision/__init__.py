"""Decision-based (set) metrics: the recommended list as an unordered set against the relevant set.

python-recsys's decision-based section: true positives (recommended and relevant), false
positives (recommended, not relevant), false negatives (relevant, not recommended),
true negatives (neither; needs the catalogue size), and the F-measure of set
precision and set recall. Order inside the list (or inside the top k) plays no part.

Set precision and set recall are already in the ranking family: ``p`` and ``r``
without a cutoff (also spelled ``set_p`` and ``set_recall``, trec_eval's names);
``set_f`` is their F-beta. With a cutoff k, every metric here reads the top k as the
recommended set (``set_f@k`` divides by the items retrieved within k, where ``f@k``
divides by k).
"""
