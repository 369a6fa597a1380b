"""Evaluation where models are trained: score tensors on their device, the same numbers as offline.

``import rankmeter.torch as rmt`` (the extra ``pip install 'rankmeter[torch]'``; torch is
imported only when a function is called):

- :func:`evaluate`: a users x items score tensor and its judgments, evaluated as
  :func:`rankmeter.evaluate` evaluates the same run and judgments;
- :class:`Evaluator`: the same over batches of users (``update``/``compute``/``reset``),
  gathered over processes when ``torch.distributed`` is initialised;
- :func:`topk`: each user's top k from embeddings, in blocks that fit the device's memory,
  as a :class:`rankmeter.Run`.

The device masks excluded items and selects the exact top k with rankmeter's tie rule
(equal scores: item id descending by bytes); the lists then go through the registry's
kernels on the host. See docs/torch.md.
"""

from __future__ import annotations

from ._evaluate import SUPPORTED, Evaluator, evaluate
from ._topk import topk

__all__ = ["Evaluator", "SUPPORTED", "evaluate", "topk"]
