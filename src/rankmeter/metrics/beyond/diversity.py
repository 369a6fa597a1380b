"""Intra-list diversity: the mean pairwise distance between the items of one list.

Distances come from what the user supplies about the items: feature vectors
(``distance=cosine``, context ``features``) or category sets (``distance=jaccard``,
context ``categories``).

Cosine without materialising the pairs: with unit vectors ``z_i`` (zero vectors stay
zero, similarity 0, as scikit-learn's ``cosine_similarity``),
``sum_{i<j} cos(i, j) = (||sum_i z_i||^2 - sum_i ||z_i||^2) / 2``, one segmented sum of
the list's vectors (a sparse product). Jaccard: items are grouped by identical category
set; the pairs of each list, enumerated in bounded chunks, look up a set-to-set distance
matrix computed once (few distinct sets, e.g. genres) or intersect sparse label rows.

>>> import rankmeter
>>> ctx = {"features": {"a": [1, 0], "b": [0, 1], "c": [1, 1]}}
>>> rankmeter.evaluate({"u": ["a"]}, {"u": ["a", "b", "c"]}, "ild@2", context=ctx).mean  # 1 - cos(a, b) = 1
{'ild@2': 1.0}
>>> cats = {"a": {"x"}, "b": {"x", "y"}, "c": {"z"}}
>>> rankmeter.evaluate({"u": ["a"]}, {"u": ["a", "b"]}, "ild(distance=jaccard)", context={"categories": cats}).mean
{'ild(distance=jaccard)': 0.5}
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence, cast

import numpy as np
import pyarrow as pa

from ..._errors import ParameterError
from .. import _segments as S
from ..batch import Batch
from ..registry import MetricSpec, Param, register
from ._context import ContextExample, _check_unique, _ids, batch_vocab, item_matrix, missing_error, need, positions

_CTX = {"features": {"a": [1, 0], "b": [0, 1], "c": [1, 1]},
        "categories": {"a": {"x"}, "b": {"x", "y"}, "c": {"z"}}}
_CHUNK_ROWS = 1 << 18  # rows per chunk when summing feature vectors (bounded memory)
_MAX_SETS = 2048  # distinct category sets up to which the set-to-set matrix is used
_PAIR_CHUNK = 1 << 22


def _pair_count(n: np.ndarray) -> np.ndarray:
    return cast(np.ndarray, n * (n - 1) / 2.0)


def _mean_distance(dist_sum: np.ndarray, n: np.ndarray) -> np.ndarray:
    pairs = _pair_count(n.astype(np.float64))
    return cast(np.ndarray, np.divide(dist_sum, pairs, out=np.zeros_like(dist_sum), where=pairs > 0))


def _feature_rows(batch: Batch) -> tuple[np.ndarray, np.ndarray]:
    """The feature matrix, and each code of the batch vocabulary's row in it (-1: none)."""
    ids, mat = item_matrix(need(batch.context, "features", "ild"), "features", "ild")
    pos = positions(batch_vocab(batch), ids)
    rows = batch.item
    missing = pos[rows] < 0 if len(rows) else np.zeros(0, dtype=bool)
    if missing.any():
        raise missing_error("ild", "features", batch_vocab(batch), rows[missing], int(missing.sum()),
                            fix="give a feature vector for every recommendable item")
    return mat, pos


def _hamming_sums(batch: Batch) -> np.ndarray:
    """Sum over pairs i<j of the number of features where the two items differ, per list: per feature,
    all pairs minus the pairs that share a value."""
    mat, pos = _feature_rows(batch)
    if not len(batch.item):
        return np.zeros(batch.n_queries)
    x = mat[pos[batch.item]]
    query = S.row_segments(batch.offsets)
    total = np.zeros(batch.n_queries)
    pairs = _pair_count(batch.lengths.astype(np.float64))
    for f in range(x.shape[1]):
        _, value = np.unique(x[:, f], return_inverse=True)
        key = query * (int(value.max()) + 1) + value
        groups, counts = np.unique(key, return_counts=True)
        same = np.bincount(groups // (int(value.max()) + 1), weights=counts * (counts - 1) / 2.0,
                           minlength=batch.n_queries)
        total += pairs - same
    return total


def _unit_rows(batch: Batch) -> np.ndarray:
    """Unit feature vector of every code of the batch vocabulary (zero rows stay zero)."""
    mat, pos = _feature_rows(batch)
    norms = np.linalg.norm(mat, axis=1)
    unit = np.divide(mat, norms[:, None], out=np.zeros_like(mat), where=norms[:, None] > 0)
    out = np.zeros((len(pos), mat.shape[1]), dtype=np.float64)
    found = pos >= 0
    out[found] = unit[pos[found]]
    return out


def _cosine_sums(batch: Batch) -> np.ndarray:
    """Sum over pairs i<j of (1 - cos) for each list.

    The per-list sum of unit vectors is a sparse product ``H @ Z`` (H: lists x items with the
    list's rows, Z: unit vectors), computed row by row, in chunks of whole lists.
    """
    from scipy import sparse

    unit = _unit_rows(batch)
    nonzero = (np.abs(unit).sum(axis=1) > 0).astype(np.float64)
    nq = batch.n_queries
    sim = np.zeros(nq)
    offsets = batch.offsets
    q = 0
    while q < nq:
        # a chunk of whole lists with at most _CHUNK_ROWS rows (at least one list)
        end = int(np.searchsorted(offsets, offsets[q] + _CHUNK_ROWS, side="right")) - 1
        end = min(max(end, q + 1), nq)
        a, b = int(offsets[q]), int(offsets[end])
        if b > a:
            sub_off = offsets[q:end + 1] - a
            codes = batch.item[a:b]
            h = sparse.csr_matrix((np.ones(b - a), codes, sub_off), shape=(end - q, len(unit)))
            vec_sum = np.asarray(h @ unit)
            sq = np.einsum("ij,ij->i", vec_sum, vec_sum)
            self_sim = S.seg_sum(nonzero[codes], sub_off)
            sim[q:end] = (sq - self_sim) / 2.0
        q = end
    return np.maximum(_pair_count(batch.lengths.astype(np.float64)) - sim, 0.0)


def _category_sets(batch: Batch) -> tuple[np.ndarray, list[frozenset[Any]]]:
    """Set id of every code of the batch vocabulary, and the distinct sets."""
    raw = need(batch.context, "categories", "ild(distance=jaccard)")
    if not isinstance(raw, Mapping):
        raise ParameterError("context['categories'] of ild must be a mapping item id -> set of labels. "
                             f"Got {type(raw).__name__} instead.")
    keys = list(raw.keys())
    ids = _ids(keys, "categories", "ild")
    _check_unique(ids, "categories", "ild")
    set_index: dict[frozenset[Any], int] = {}
    item_set = np.empty(len(keys), dtype=np.int64)
    for n, key in enumerate(keys):
        labels = raw[key]
        if isinstance(labels, (str, bytes)):
            labels = [labels]
        fs = frozenset(labels)
        item_set[n] = set_index.setdefault(fs, len(set_index))
    pos = positions(batch_vocab(batch), ids)
    rows = batch.item
    missing = pos[rows] < 0 if len(rows) else np.zeros(0, dtype=bool)
    if missing.any():
        raise missing_error("ild", "categories", batch_vocab(batch), rows[missing], int(missing.sum()),
                            fix="give a (possibly empty) category set for every recommendable item")
    code_set = np.where(pos >= 0, item_set[np.maximum(pos, 0)], -1)
    return code_set, list(set_index)


def _jaccard(a: frozenset[Any], b: frozenset[Any]) -> float:
    union = len(a | b)
    return 1.0 - len(a & b) / union if union else 0.0


def _jaccard_matrix(sets: list[frozenset[Any]]) -> np.ndarray:
    """Pairwise Jaccard distances of category sets (two empty sets: 0), from a binary matrix."""
    labels: dict[Any, int] = {}
    rows, cols = [], []
    for r, st in enumerate(sets):
        for x in st:
            rows.append(r)
            cols.append(labels.setdefault(x, len(labels)))
    b = np.zeros((len(sets), max(len(labels), 1)))
    b[rows, cols] = 1.0
    inter = b @ b.T
    size = b.sum(axis=1)
    union = size[:, None] + size[None, :] - inter
    return np.where(union > 0, 1.0 - np.divide(inter, union, out=np.zeros_like(inter), where=union > 0), 0.0)


def _jaccard_sums(batch: Batch) -> np.ndarray:
    """Sum of Jaccard distances over the pairs of each list.

    Items are grouped by identical category set. With few distinct sets (the usual case:
    genres) the set-to-set distance matrix is computed once and the pairs of each list
    look it up; otherwise each pair's intersection comes from a sparse label matrix.
    Pairs are enumerated in bounded chunks of whole lists.
    """
    code_set, sets = _category_sets(batch)
    row_set = code_set[batch.item]
    nq = batch.n_queries
    out = np.zeros(nq)
    if len(row_set) == 0:
        return out
    present = np.zeros(len(sets), dtype=bool)
    present[row_set] = True
    used = np.flatnonzero(present)
    remap = np.cumsum(present) - 1
    local = remap[row_set]
    used_sets = [sets[u] for u in used]
    if len(used) <= _MAX_SETS:
        flat = _jaccard_matrix(used_sets).ravel()
        n_used = len(used)

        def pair_distance(si: np.ndarray, sj: np.ndarray) -> np.ndarray:
            return cast(np.ndarray, flat.take(si * n_used + sj))
    else:
        pair_distance = _sparse_jaccard(used_sets)
    lengths = batch.lengths
    offsets = batch.offsets
    small = np.int32 if len(used) ** 2 < 2**31 else np.int64
    for q0, q1 in _pair_chunks(lengths):
        ln = lengths[q0:q1]
        for n in np.unique(ln):
            if n < 2:
                continue
            which = q0 + np.flatnonzero(ln == n)
            # the set of every row of these lists, one list per row of the matrix
            sets_of = local[offsets[which][:, None] + np.arange(int(n))[None, :]].astype(small)
            ii, jj = np.triu_indices(int(n), k=1)
            d = pair_distance(np.take(sets_of, ii, axis=1), np.take(sets_of, jj, axis=1))
            out[which] = d.sum(axis=1)
    return out


def _sparse_jaccard(sets: list[frozenset[Any]]) -> Any:
    from scipy import sparse

    labels: dict[Any, int] = {}
    indptr, indices = [0], []
    for st in sets:
        indices += [labels.setdefault(x, len(labels)) for x in st]
        indptr.append(len(indices))
    m = sparse.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(len(sets), max(len(labels), 1)))
    sizes = np.diff(m.indptr).astype(np.float64)

    def pair_distance(si: np.ndarray, sj: np.ndarray) -> np.ndarray:
        shape = si.shape
        si, sj = si.ravel().astype(np.int64), sj.ravel().astype(np.int64)
        inter = np.asarray(m[si].multiply(m[sj]).sum(axis=1)).ravel()
        union = sizes[si] + sizes[sj] - inter
        d = np.where(union > 0, 1.0 - np.divide(inter, union, out=np.zeros_like(inter), where=union > 0), 0.0)
        return d.reshape(shape)

    return pair_distance


def _pair_chunks(lengths: np.ndarray) -> Iterable[tuple[int, int]]:
    """Ranges of whole lists with about _PAIR_CHUNK pairs each (at least one list)."""
    pairs = np.cumsum(lengths * (lengths - 1) // 2)
    q, n = 0, len(lengths)
    while q < n:
        base = pairs[q - 1] if q else 0
        e = int(np.searchsorted(pairs, base + _PAIR_CHUNK, side="right"))
        e = min(max(e, q + 1), n)
        yield q, e
        q = e


def ild_kernel(b: Batch, distance: str) -> np.ndarray:
    sums = {"cosine": _cosine_sums, "jaccard": _jaccard_sums, "hamming": _hamming_sums}[distance](b)
    return _mean_distance(sums, b.lengths)


def ils_kernel(b: Batch, similarity: str) -> np.ndarray:
    """Intra-list similarity: 1 - ILD; no value (nan, left out of the mean) for a list without a pair."""
    return np.where(b.lengths >= 2, 1.0 - ild_kernel(b, similarity), np.nan)


def _ref_features(context: Mapping[str, Any] | None) -> dict[str, np.ndarray]:
    value = need(context, "features", "ild")
    if isinstance(value, tuple):
        ids, mat = value
        ids = ids.to_pylist() if isinstance(ids, pa.Array) else list(ids)
        return {str(i): np.asarray(v, dtype=float) for i, v in zip(ids, mat, strict=True)}
    return {str(i): np.asarray(v, dtype=float) for i, v in value.items()}


def ild_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, *,
                  context: Mapping[str, Any] | None = None, distance: str = "cosine") -> float:
    kept = list(ranking if k is None else ranking[:k])
    n = len(kept)
    if n < 2:
        return 0.0
    total = 0.0
    if distance == "hamming":
        feats = _ref_features(context)
        for x in range(n):
            for y in range(x + 1, n):
                total += float(np.sum(feats[kept[x]] != feats[kept[y]]))
    elif distance == "cosine":
        feats = _ref_features(context)
        for x in range(n):
            for y in range(x + 1, n):
                a, c = feats[kept[x]], feats[kept[y]]
                na, nc = float(np.linalg.norm(a)), float(np.linalg.norm(c))
                cos = float(np.dot(a, c)) / (na * nc) if na > 0 and nc > 0 else 0.0
                total += 1.0 - cos
    else:
        cats = {str(i): (frozenset([v]) if isinstance(v, str) else frozenset(v))
                for i, v in need(context, "categories", "ild").items()}
        for x in range(n):
            for y in range(x + 1, n):
                total += _jaccard(cats[kept[x]], cats[kept[y]])
    return total / (n * (n - 1) / 2)


register(
    MetricSpec(
        name="ild",
        family="beyond",
        summary="Intra-list diversity: mean pairwise distance between the recommended items (cosine or Jaccard).",
        formula=r"ILD@k(u) = \frac{2}{n(n-1)} \sum_{i<j \in L_u^k} d(i, j),\quad d = 1 - \cos(x_i, x_j) "
                r"\text{ or } 1 - \frac{|C_i \cap C_j|}{|C_i \cup C_j|}",
        citation=(
            "Smyth & McClave (2001), Similarity vs. diversity, ICCBR, doi:10.1007/3-540-44593-5_25; "
            "Ziegler, McNee, Konstan, Lausen (2005), Improving recommendation lists through topic "
            "diversification, WWW, doi:10.1145/1060745.1060754 (intra-list similarity)."
        ),
        convention=(
            "Mean over the n(n-1)/2 unordered pairs of the top-k list (n = its length); a list of fewer than "
            "two items scores 0. distance=cosine: 1 - cosine of the item feature vectors (context['features']; "
            "a zero vector has similarity 0 to everything, as scikit-learn). distance=jaccard: 1 - Jaccard "
            "index of the item category sets (context['categories']); two empty sets are at distance 0. "
            "Ziegler et al.'s intra-list similarity is 1 - ILD (cosine): ils. distance=hamming counts the "
            "features (context['features']) in which two items differ, not their share (RecTools' "
            "IntraListDiversity with a Hamming distance, rectools/metrics/diversity.py), so it is not bounded "
            "by 2. An item without features/categories is an error with a count."
        ),
        kernel=ild_kernel,
        reference=ild_reference,
        params=(Param("distance", str, "cosine", "cosine on feature vectors, jaccard on category sets, or "
                      "hamming: the number of features in which two items differ (RecTools' IntraListDiversity "
                      "with a Hamming distance)", choices=("cosine", "jaccard", "hamming")),),
        aliases={"intra_list_diversity": {}, "diversity": {}},
        examples=(
            ContextExample("ild@3", {"u": ["a", "b", "c"]}, {"u": ["a"]}, _CTX, (1 + 2 * (1 - 2 ** -0.5)) / 3,
                           note="d(a,b) = 1 - 0; d(a,c) = d(b,c) = 1 - 1/sqrt(2); three pairs"),
            ContextExample("ild@2", {"u": ["a", "c"], "v": ["b"]}, {"u": ["a"], "v": ["b"]}, _CTX,
                           ((1 - 2 ** -0.5) + 0) / 2, note="v has one item: 0"),
            ContextExample("ild(distance=jaccard)@3", {"u": ["a", "b", "c"]}, {"u": ["a"]}, _CTX,
                           (0.5 + 1 + 1) / 3, note="a={x}, b={x,y}: 1 - 1/2; c={z} shares nothing"),
            ContextExample("ild(distance=hamming)@3", {"u": ["a", "b", "c"]}, {"u": ["a"]}, _CTX,
                           (2 + 1 + 1) / 3, note="a=(1,0), b=(0,1) differ in 2 features; c=(1,1) in 1 from each"),
        ),
        higher_is_better=True,
        bounds=(0.0, float("inf")),  # cosine: at most 2, jaccard 1, hamming the number of features
        properties=frozenset({"beyond", "needs_context", "judgment_free"}),
    )
)


def ils_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, *,
                  context: Mapping[str, Any] | None = None, similarity: str = "cosine") -> float:
    kept = list(ranking if k is None else ranking[:k])
    if len(kept) < 2:
        return float("nan")
    return 1.0 - ild_reference(ranking, qrels, k, context=context, distance=similarity)


register(
    MetricSpec(
        name="ils",
        family="beyond",
        summary="Intra-list similarity: mean pairwise similarity of the recommended items (1 - ILD).",
        formula=r"ILS@k(u) = \frac{2}{n(n-1)} \sum_{i<j \in L_u^k} s(i, j) = 1 - ILD@k(u)",
        citation=(
            "Ziegler, McNee, Konstan, Lausen (2005), Improving recommendation lists through topic "
            "diversification, WWW, doi:10.1145/1060745.1060754; recmetrics' intra_list_similarity "
            "(recmetrics/metrics.py)."
        ),
        convention=(
            "s = cos(x_i, x_j) of the feature vectors (similarity=cosine, context['features'], as recmetrics) "
            "or the Jaccard index of the category sets (similarity=jaccard); 1 - ILD with the same distance. "
            "A list of fewer than two items has no pair: no value, left out of the mean (recmetrics' mean of "
            "an empty triangle is nan)."
        ),
        kernel=ils_kernel,
        reference=ils_reference,
        params=(Param("similarity", str, "cosine", "cosine on feature vectors, or jaccard on category sets",
                      choices=("cosine", "jaccard")),),
        aliases={"intra_list_similarity": {}},
        examples=(
            ContextExample("ils@3", {"u": ["a", "b", "c"]}, {"u": ["a"]}, _CTX, (0 + 2 * 2 ** -0.5) / 3,
                           note="cos(a,b) = 0; cos(a,c) = cos(b,c) = 1/sqrt(2)"),
            ContextExample("ils(similarity=jaccard)@3", {"u": ["a", "b", "c"]}, {"u": ["a"]}, _CTX, (0.5 + 0 + 0) / 3,
                           note="a={x}, b={x,y}: Jaccard 1/2; c={z} shares nothing"),
        ),
        higher_is_better=False,
        bounds=(-1.0, 1.0),
        properties=frozenset({"beyond", "needs_context", "judgment_free"}),
    )
)
