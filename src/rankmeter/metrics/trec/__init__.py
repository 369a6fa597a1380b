"""trec_eval's measures, exactly as trec_eval 10.0 (and 9.0.8) computes them.

:mod:`.engine` holds trec_eval's per-query definitions (one function per ``m_*.c``
measure, over one ranked list of relevance values) and its measure table (order,
parameters, nicknames, output names); :mod:`.measures` registers the measures that
rankmeter did not have as registry entries (``infAP``, ``binG``, ``G``,
``ndcg_rel``, ``Rndcg``, ``Rprec_mult``, ``iprec_at_recall``, ``11pt_avg``,
``utility``, ``relative_P``, ``set_*``, ``gm_map``, ``gm_bpref``, ``num_q``,
``trec_rbp``...).
"""
