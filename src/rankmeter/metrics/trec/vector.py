"""Which registry metrics compute a trec_eval measure exactly, under trec_eval's options.

The ``rankmeter trec_eval`` command and :mod:`rankmeter.pytrec_eval` compute every
measure that has such a twin with the registry's vectorised kernels (all queries at
once); a measure without one (custom gains, 11pt_avg at other recall levels, ...)
goes through trec_eval's own walk (:mod:`rankmeter.metrics.trec.engine`), query by
query. The twins follow the options: ``-l`` becomes ``rel=``, the 9.0.8 / 10.0
recall rounding becomes ``round=``, ``-N`` becomes utility's ``n_docs``; ``-M`` and
``-J`` are the evaluation's ``depth`` and ``judged_only``, the same for every metric.

>>> from rankmeter.metrics.trec.engine import Options, measure
>>> m = measure("iprec_at_recall")
>>> registry_texts(m, (0.1,), Options(level=2, compat="9.0.8"))
[('iprec_at_recall(rel=2,recall=0.1,round=9.0.8)', 'value')]
>>> registry_texts(measure("ndcg"), (("1", 3.0),), Options()) is None  # custom gains: trec_eval's walk
True
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from .engine import Options, TrecMeasure

__all__ = ["registry_texts", "CONSTANT", "LOG", "SUMMED"]

#: Measures whose value is a floating-point sum (or a formula of several operations): the
#: registry's kernel and trec_eval's walk may add in another order and differ in the last
#: bits. The others are one division of whole numbers (P, recall, Rprec, recip_rank, the
#: set measures, iprec_at_recall, ...), the same bits whichever computes them.
SUMMED = frozenset({"map", "gm_map", "bpref", "gm_bpref", "infAP", "ndcg", "ndcg_cut", "ndcg_rel", "Rndcg", "G",
                    "binG", "map_cut", "11pt_avg", "rbp", "rbp_resid", "set_F", "set_map", "utility"})

#: ``how`` of a value that is the metric's value, its log (gm_*) or a constant.
VALUE, LOG = "value", "log"
CONSTANT = {"const0": 0.0, "const1": 1.0}

_CUT = {"P": "p({L})@{k}", "recall": "r({L})@{k}", "ndcg_cut": "ndcg@{k}", "map_cut": "ap({L})@{k}",
        "relative_P": "relative_p({L})@{k}", "success": "success({L})@{k}", "unj": "unj@{k}"}


def registry_texts(m: TrecMeasure, p: Sequence[Any], opts: Options) -> list[tuple[str, str]] | None:
    """(registry metric text, how) for each value of measure ``m`` with parameters ``p``, or None.

    ``how``: ``value``, ``log`` (``log(max(value, 1e-5))``, the per-query form of gm_*),
    ``const0`` / ``const1``. None: no registry metric gives trec_eval's value here.
    ``relstring`` (a string) and ``runid`` have no number: ``const0``, as pytrec_eval.
    """
    name = m.name
    L = f"rel={opts.level!r}"
    one = {
        "num_ret": "num_ret", "num_rel": f"num_rel({L})", "num_rel_ret": f"num_rel_ret({L})", "map": f"ap({L})",
        "Rprec": f"rprec({L})", "bpref": f"bpref({L})", "recip_rank": f"rr({L})", "infAP": f"infap({L})",
        "binG": f"bing({L})", "set_P": f"p({L},norm=retrieved)", "set_relative_P": f"relative_p({L})",
        "set_recall": f"r({L})", "set_map": f"set_map({L})", "num_nonrel_judged_ret": f"num_nonrel_judged_ret({L})",
    }
    if name in one:
        return [(one[name], VALUE)]
    if m.kind == "pairs":  # gains given as level=gain pairs: only the defaults have a twin (rbp: only p=)
        if name in ("rbp", "rbp_resid"):
            if any(k != "p" for k, _ in p):
                return None
            x = dict(p).get("p", 0.9)
            return [(f"trec_rbp(p={float(x)!r}{',residual=true' if name == 'rbp_resid' else ''})", VALUE)]
        if tuple(p) != ():
            return None
        plain = {"G": "g", "ndcg": "ndcg", "ndcg_rel": "ndcg_rel", "Rndcg": f"rndcg({L})"}
        return [(plain[name], VALUE)] if name in plain else None
    if name in ("gm_map", "gm_bpref"):
        return [(f"{'ap' if name == 'gm_map' else 'bpref'}({L})", LOG)]
    if name in ("runid", "relstring"):
        return [("", "const0")]
    if name == "num_q":
        return [("", "const1")]
    if name in _CUT:
        return [(_CUT[name].format(L=L, k=k), VALUE) for k in p]
    if name == "iprec_at_recall":
        return [(f"iprec_at_recall({L},recall={float(x)!r},round={opts.compat})", VALUE) for x in p]
    if name == "Rprec_mult":
        return [(f"rprec_mult({L},mult={float(x)!r})", VALUE) for x in p]
    if name == "11pt_avg" and tuple(p) == tuple(m.default):
        return [(f"iprec_avg({L},round={opts.compat})", VALUE)]
    if name == "utility" and len(p) == 4:
        a, b, c, d = (float(x) for x in p)
        return [(f"utility({L},a={a!r},b={b!r},c={c!r},d={d!r},n_docs={int(opts.num_docs_in_coll)})", VALUE)]
    if name == "set_F" and len(p) >= 1 and p[0] > 0:
        return [(f"set_f({L},beta={math.sqrt(p[0])!r})", VALUE)]
    return None
