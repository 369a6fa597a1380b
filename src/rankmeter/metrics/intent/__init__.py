"""Intent-aware (diversity) metrics over judgments by subtopic, with NIST ndeval's conventions.

alpha-nDCG and alpha-DCG (Clarke et al., SIGIR 2008), ERR-IA and nERR-IA (Chapelle et
al., CIKM 2009, in ndeval's form), NRBP and nNRBP (Clarke, Kolla & Vechtomova, ICTIR
2009), P-IA and MAP-IA (Agrawal et al., WSDM 2009) and subtopic recall (Zhai, Cohen &
Lafferty, SIGIR 2003). They read judgments by subtopic
(``rankmeter.read_qrels(path, subtopics=True)``); see docs/intent.md for the
definitions and the conventions chosen.
"""

from ._common import IntentExample, intent_batch

__all__ = ["IntentExample", "intent_batch"]
