"""Synthetic, deterministic implicit-feedback data sets for demos, tests and benchmarks.

:func:`synthetic` draws a realistic data set from a small generative model:

* item popularity follows a power law (Zipf, exponent ``alpha``) over a random
  permutation of the items, so ids say nothing about popularity;
* genres have latent centroids; each item belongs to 1-3 genres and its latent vector
  is the mean of their centroids plus noise; each user likes 1-2 genres likewise;
* each user's number of interactions is log-normal (at least ``min_per_user``);
  a user picks items without replacement with probability proportional to
  ``popularity * exp(taste * <user, item>)`` (Gumbel top-k sampling);
* ratings 1-5 grow with the user-item affinity (plus noise; mean about 3.5, as in
  MovieLens); timestamps: each user is active over a span of the data set's period
  (MovieLens-100k's: September 1997 to April 1998), in random order within it.

Everything is a function of ``seed``. :func:`movielens100k_like` gives exactly the
shape of MovieLens-100k (943 users, 1,682 items, 100,000 ratings, every user at least
20 ratings, every item at least one) for tests and benchmarks, and :func:`write_udata`
writes the ``u.data`` layout (``user item rating timestamp``, tab-separated, no header).

>>> d = synthetic(n_users=50, n_items=80, seed=3)
>>> d.interactions.column_names, d.n_users, d.n_items
(['user', 'item', 'rating', 'timestamp'], 50, 80)
>>> d.interactions.equals(synthetic(n_users=50, n_items=80, seed=3).interactions)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from .._errors import ParameterError
from .._files import atomic_open, atomic_path, write_bytes

__all__ = ["SyntheticData", "synthetic", "movielens100k_like", "write_udata", "GENRES", "BiasedFeedback",
           "biased_feedback", "ML100K_GENRES", "read_movielens_genres", "write_uitem"]

GENRES = ("Action", "Adventure", "Animation", "Children's", "Comedy", "Crime", "Documentary", "Drama", "Fantasy",
          "Film-Noir", "Horror", "Musical", "Mystery", "Romance", "Sci-Fi", "Thriller", "War", "Western")

#: MovieLens-100k's 19 genre flags of ``u.item``, in column order (as its ``u.genre`` lists them)
ML100K_GENRES = ("unknown",) + GENRES

_T0, _T1 = 874_724_710, 893_286_638  # MovieLens-100k's first and last timestamps


@dataclass(frozen=True, eq=False)
class SyntheticData:
    """A generated data set: interactions plus what the generator knows about the items.

    ``interactions``: Arrow table ``user, item, rating, timestamp`` (int64 ids from 1);
    ``item_features``: ``(item ids as text, latent vectors)``; ``categories``: item id ->
    frozenset of genre names; ``params``: the generator's arguments.
    """

    interactions: pa.Table
    item_features: tuple[pa.Array, np.ndarray]
    categories: dict[str, frozenset[str]]
    params: dict[str, Any]

    @property
    def n_users(self) -> int:
        return len(np.unique(self.interactions.column("user").to_numpy()))

    @property
    def n_items(self) -> int:
        return len(np.unique(self.interactions.column("item").to_numpy()))

    def __len__(self) -> int:
        return int(self.interactions.num_rows)

    def write(self, directory: str | Path) -> dict[str, Path]:
        """Write ``interactions.tsv`` (u.data layout), ``item_features.tsv`` and ``item_genres.tsv``."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        paths = {"interactions": d / "interactions.tsv", "item_features": d / "item_features.tsv",
                 "categories": d / "item_genres.tsv"}
        write_udata(self.interactions, paths["interactions"])
        ids, mat = self.item_features
        with atomic_open(paths["item_features"], "w") as fh:  # whole or not at all
            fh.write("item\t" + "\t".join(f"f{j}" for j in range(mat.shape[1])) + "\n")
            for i, row in zip(ids.to_pylist(), mat, strict=True):
                fh.write(i + "\t" + "\t".join(f"{v:.6g}" for v in row) + "\n")
        with atomic_open(paths["categories"], "w") as fh:
            fh.write("item\tgenres\n")
            for i, g in self.categories.items():
                fh.write(f"{i}\t{'|'.join(sorted(g))}\n")
        return paths


def _check(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ParameterError(f"The {name!r} parameter of synthetic must be an int >= {minimum}. Got {value!r} instead.")
    return int(value)


def _model(rng: np.random.Generator, n_users: int, n_items: int, n_factors: int, alpha: float
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[frozenset[str]]]:
    g = len(GENRES)
    centroids = rng.normal(size=(g, n_factors))
    centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
    genre_weight = rng.dirichlet(np.full(g, 0.8))  # some genres are much larger than others
    # items: 1-3 genres, latent vector = mean of their centroids + noise
    n_gen = rng.choice([1, 2, 3], size=n_items, p=[0.5, 0.35, 0.15])
    item_vec = np.empty((n_items, n_factors))
    cats: list[frozenset[str]] = []
    for i in range(n_items):
        gs = rng.choice(g, size=n_gen[i], replace=False, p=genre_weight)
        item_vec[i] = centroids[gs].mean(axis=0) + rng.normal(scale=0.3 / np.sqrt(n_factors), size=n_factors)
        cats.append(frozenset(GENRES[j] for j in gs))
    # users: 1-2 liked genres
    user_vec = np.empty((n_users, n_factors))
    for u in range(n_users):
        gs = rng.choice(g, size=rng.choice([1, 2], p=[0.6, 0.4]), replace=False, p=genre_weight)
        user_vec[u] = centroids[gs].mean(axis=0) + rng.normal(scale=0.3 / np.sqrt(n_factors), size=n_factors)
    # popularity: Zipf over a random permutation of the items
    ranks = rng.permutation(n_items) + 1
    pop = ranks.astype(np.float64) ** -alpha
    return user_vec, item_vec, pop / pop.sum(), cats


def _sample(rng: np.random.Generator, user_vec: np.ndarray, item_vec: np.ndarray, pop: np.ndarray,
            counts: np.ndarray, taste: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Items of each user (Gumbel top-k without replacement) and their affinities."""
    n_users, n_items = len(user_vec), len(item_vec)
    logpop = np.log(pop)
    users, items, aff = [], [], []
    step = max(1, 2_000_000 // n_items)
    for a in range(0, n_users, step):
        b = min(a + step, n_users)
        affinity = user_vec[a:b] @ item_vec.T
        keys = logpop + taste * affinity + rng.gumbel(size=(b - a, n_items))
        order = np.argsort(-keys, axis=1)
        for r in range(b - a):
            chosen = order[r, : counts[a + r]]
            users.append(np.full(len(chosen), a + r))
            items.append(chosen)
            aff.append(affinity[r, chosen])
    return np.concatenate(users), np.concatenate(items), np.concatenate(aff)


def _ratings_and_times(rng: np.random.Generator, users: np.ndarray, aff: np.ndarray, n_users: int
                       ) -> tuple[np.ndarray, np.ndarray]:
    z = (aff - aff.mean()) / (aff.std() or 1.0)
    ratings = np.clip(np.rint(3.55 + 0.75 * z + rng.normal(scale=0.8, size=len(z))), 1, 5).astype(np.int64)
    period = _T1 - _T0
    start = _T0 + rng.uniform(0, 0.85, size=n_users) * period
    span = np.minimum(rng.exponential(0.15, size=n_users) * period, _T1 - start)
    ts = start[users] + rng.uniform(size=len(users)) * span[users]
    return ratings, np.floor(ts).astype(np.int64)


def _result(users: np.ndarray, items: np.ndarray, ratings: np.ndarray, ts: np.ndarray, item_vec: np.ndarray,
            cats: list[frozenset[str]], params: dict[str, Any]) -> SyntheticData:
    order = np.lexsort((items, ts, users))  # by user, then time
    table = pa.table({
        "user": pa.array(users[order] + 1, pa.int64()),
        "item": pa.array(items[order] + 1, pa.int64()),
        "rating": pa.array(ratings[order], pa.int64()),
        "timestamp": pa.array(ts[order], pa.int64()),
    })
    ids = [str(i + 1) for i in range(len(item_vec))]
    return SyntheticData(
        interactions=table,
        item_features=(pa.array(ids, pa.string()), item_vec),
        categories={ids[i]: cats[i] for i in range(len(ids))},
        params=params,
    )


def synthetic(n_users: int = 1000, n_items: int = 2000, *, seed: int = 0, mean_per_user: float = 50.0,
              min_per_user: int = 10, n_factors: int = 16, alpha: float = 1.0, taste: float = 5.0) -> SyntheticData:
    """A deterministic implicit-feedback data set (see the module docstring for the model).

    ``mean_per_user`` is the mean number of interactions per user (log-normal, at least
    ``min_per_user``, at most half the items); ``alpha`` the Zipf exponent of item
    popularity; ``taste`` how much users follow their latent tastes rather than popularity.
    """
    n_users = _check("n_users", n_users, 2)
    n_items = _check("n_items", n_items, 2)
    seed = _check("seed", seed, 0)
    min_per_user = _check("min_per_user", min_per_user, 1)
    rng = np.random.default_rng(seed)
    user_vec, item_vec, pop, cats = _model(rng, n_users, n_items, n_factors, alpha)
    cap = max(min_per_user, n_items // 2)
    sigma = 0.9
    mu = np.log(max(mean_per_user - min_per_user, 1.0)) - sigma**2 / 2
    counts = np.minimum(min_per_user + np.floor(rng.lognormal(mu, sigma, size=n_users)).astype(np.int64), cap)
    users, items, aff = _sample(rng, user_vec, item_vec, pop, counts, taste)
    ratings, ts = _ratings_and_times(rng, users, aff, n_users)
    params = dict(n_users=n_users, n_items=n_items, seed=seed, mean_per_user=mean_per_user,
                  min_per_user=min_per_user, n_factors=n_factors, alpha=alpha, taste=taste)
    return _result(users, items, ratings, ts, item_vec, cats, params)


def movielens100k_like(seed: int = 0, *, n_users: int = 943, n_items: int = 1682, n_ratings: int = 100_000,
                       min_per_user: int = 20) -> SyntheticData:
    """A data set of exactly MovieLens-100k's shape: 943 users, 1,682 items, 100,000 ratings.

    Every user has at least 20 ratings and every item at least one, as in the real
    ``u.data``; ratings 1-5 and Unix timestamps of the same period. Deterministic in ``seed``.
    """
    seed = _check("seed", seed, 0)
    if n_ratings < n_users * min_per_user or n_ratings > n_users * n_items or n_ratings < n_items:
        raise ParameterError(f"cannot place {n_ratings} ratings for {n_users} users x {n_items} items "
                             f"with at least {min_per_user} per user")
    rng = np.random.default_rng(seed)
    user_vec, item_vec, pop, cats = _model(rng, n_users, n_items, 16, 1.0)
    # users' counts: min_per_user + a multinomial share, capped (MovieLens' busiest user has 737)
    cap = min(737, n_items)
    weights = rng.lognormal(0.0, 1.1, size=n_users)
    counts = np.full(n_users, min_per_user, dtype=np.int64)
    left = n_ratings - counts.sum()
    while left > 0:
        room = cap - counts
        w = np.where(room > 0, weights, 0.0)
        add = np.minimum(rng.multinomial(left, w / w.sum()), room)
        counts += add
        left = n_ratings - counts.sum()
    users, items, aff = _sample(rng, user_vec, item_vec, pop, counts, 5.0)
    # every item rated at least once: give each missing item a row of a popular item,
    # taken from a user who has that popular item (the missing item is new to everyone)
    per_item = np.bincount(items, minlength=n_items)
    missing = np.flatnonzero(per_item == 0)
    if len(missing):
        donors = np.argsort(-per_item, kind="stable")
        d = 0
        for m in missing:
            while per_item[donors[d]] <= 1:
                d += 1
            rows = np.flatnonzero(items == donors[d])
            row = rows[rng.integers(len(rows))]
            per_item[donors[d]] -= 1
            items[row] = m
            per_item[m] = 1
            aff[row] = float(user_vec[users[row]] @ item_vec[m])
            d = (d + 1) % max(1, min(len(donors), 50))
    ratings, ts = _ratings_and_times(rng, users, aff, n_users)
    params = dict(kind="movielens100k_like", seed=seed, n_users=n_users, n_items=n_items, n_ratings=n_ratings)
    return _result(users, items, ratings, ts, item_vec, cats, params)


def write_udata(table: Any, path: str | Path) -> Path:
    """Write interactions in MovieLens' ``u.data`` layout: ``user item rating timestamp``, tabs, no header."""
    import pyarrow.csv as pacsv

    t = table.interactions if isinstance(table, SyntheticData) else table
    cols = [c for c in ("user", "item", "rating", "timestamp") if c in t.column_names]
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(p) as tmp:  # whole or not at all
        pacsv.write_csv(t.select(cols), str(tmp),
                        write_options=pacsv.WriteOptions(include_header=False, delimiter="\t", quoting_style="none"))
    return p


def read_movielens_genres(path: str | Path, *, genres: Any = None,
                          encoding: str = "latin-1") -> dict[str, frozenset[str]]:
    r"""Item genres from MovieLens' ``u.item``: ``{item id: frozenset of genre names}``.

    ``u.item`` (MovieLens-100k) has one line per movie, fields separated by ``|``: movie id,
    title, release date, video release date, IMDb URL, then one 0/1 flag per genre (19, in
    the order of :data:`ML100K_GENRES`, which is ``u.genre``'s). The file is latin-1 text
    (titles such as ``Ma vie en rose``'s accents). ``genres``: the names of the flag columns
    (a sequence, or the path of a ``u.genre`` file: ``name|index`` lines); default
    :data:`ML100K_GENRES`. Ids are text exactly as written. The ``unknown`` flag is kept as
    the label ``unknown``, as the file writes it; a movie without any flag gets an empty
    set (calibration leaves it out and counts it). A line with another number of fields,
    a flag other than 0/1, an empty or repeated movie id is an
    :class:`~rankmeter.InputError` naming the line.

    >>> import tempfile, os
    >>> flags = ["0"] * 19
    >>> flags[1] = flags[5] = "1"          # Action, Comedy
    >>> line = "|".join(["7", "Twelve Monkeys (1995)", "01-Jan-1995", "", "http://x"] + flags)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "u.item")
    ...     _ = open(p, "w", encoding="latin-1").write(line + "\n")
    ...     sorted(read_movielens_genres(p)["7"])
    ['Action', 'Comedy']
    """
    from .._errors import InputError

    names = _genre_names(genres)
    p = Path(path)
    try:
        text = p.read_bytes().decode(encoding)
    except FileNotFoundError:
        raise InputError("no such file", source=str(path)) from None
    except (OSError, UnicodeDecodeError, LookupError) as exc:
        raise InputError(f"cannot read the file as {encoding} text: {exc}", source=str(path)) from None
    out: dict[str, frozenset[str]] = {}
    n_fields = 5 + len(names)
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        fields = line.split("|")
        if len(fields) != n_fields:
            raise InputError(f"expected {n_fields} fields separated by '|' (movie id, title, release date, video "
                             f"release date, IMDb URL and {len(names)} genre flags), found {len(fields)}",
                             source=str(path), line=n, text=line)
        item, flags = fields[0], fields[5:]
        if not item:
            raise InputError("empty movie id", source=str(path), line=n, text=line)
        bad = [f for f in flags if f not in ("0", "1")]
        if bad:
            raise InputError(f"genre flags must be 0 or 1; found {bad[0]!r}", source=str(path), line=n, text=line)
        if item in out:
            raise InputError(f"movie id {item!r} appears twice", source=str(path), line=n, text=line)
        out[item] = frozenset(g for g, f in zip(names, flags, strict=True) if f == "1")
    if not out:
        raise InputError("the file has no movie line", source=str(path))
    return out


def _genre_names(genres: Any) -> tuple[str, ...]:
    from .._errors import InputError

    if genres is None:
        return ML100K_GENRES
    if isinstance(genres, (str, Path)):
        p = Path(genres)
        try:
            text = p.read_bytes().decode("latin-1")
        except OSError as exc:
            raise InputError(f"cannot read the genre list: {exc}", source=str(genres)) from None
        pairs = []
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            name, sep, index = line.rpartition("|")
            if not sep or not name or not index.strip().isdigit():
                raise InputError("expected 'name|index' (u.genre)", source=str(genres), line=n, text=line)
            pairs.append((int(index), name))
        if sorted(i for i, _ in pairs) != list(range(len(pairs))):
            raise InputError("the genre indexes must be 0, 1, 2, ... without gaps or repeats", source=str(genres))
        return tuple(name for _, name in sorted(pairs))
    names = tuple(str(g) for g in genres)
    if not names or len(set(names)) != len(names):
        raise ParameterError("The 'genres' parameter of read_movielens_genres must name each flag column once. "
                             f"Got {list(names)!r} instead.")
    return names


def write_uitem(data: Any, path: str | Path) -> Path:
    """Write item genres in MovieLens' ``u.item`` layout (latin-1, ``|``-separated, 19 genre flags).

    ``data``: a :class:`SyntheticData` (its categories) or a mapping item -> genres. Titles
    are ``Movie <id>``, dates and URLs empty; genres outside :data:`ML100K_GENRES` are an
    error. :func:`read_movielens_genres` reads the file back to the same genres.
    """
    cats = data.categories if isinstance(data, SyntheticData) else data
    col = {g: j for j, g in enumerate(ML100K_GENRES)}
    lines = []
    for item in sorted(cats, key=lambda x: (len(str(x)), str(x))):
        labels = cats[item]
        unknown = sorted(set(labels) - set(col))
        if unknown:
            raise ParameterError(f"write_uitem: item {item!r} has genres that u.item cannot hold: {unknown} "
                                 f"(u.item's genres: {', '.join(ML100K_GENRES)})")
        flags = ["0"] * len(ML100K_GENRES)
        for g in labels:
            flags[col[g]] = "1"
        lines.append("|".join([str(item), f"Movie {item}", "", "", ""] + flags))
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    write_bytes(p, ("\n".join(lines) + "\n").encode("latin-1"))
    return p


@dataclass(frozen=True, eq=False)
class BiasedFeedback:
    """Implicit feedback with known propensities: what each user truly likes, and what was observed.

    ``relevant``: table ``user, item`` of every true (user, item) relevance; ``train`` and
    ``test``: the observed interactions, split at random; ``truth``: the relevant items of
    each user that are not in ``train`` (what a recommender should find: the full-information
    held-out set); ``propensity``: item id -> the exact probability that a relevant item
    not in train is in ``test`` (what :mod:`rankmeter.metrics.unbiased` weighs by);
    ``observation``: item id -> the probability that a relevant item is observed at all;
    ``params``: the generator's arguments.
    """

    relevant: pa.Table
    train: pa.Table
    test: pa.Table
    truth: pa.Table
    propensity: dict[str, float]
    observation: dict[str, float]
    params: dict[str, Any]


def biased_feedback(n_users: int = 500, n_items: int = 1000, *, seed: int = 0, relevant_per_user: float = 40.0,
                    alpha: float = 1.0, exponent: float = 0.5, min_observation: float = 0.02,
                    test_share: float = 0.5) -> BiasedFeedback:
    """Missing-not-at-random implicit feedback with known propensities (Yang et al.'s power-law exposure model).

    1. True relevance: item appeal follows a power law (Zipf, exponent ``alpha``, over a
       random permutation of the items); each user finds ``Poisson(relevant_per_user)``
       (at least 2) items relevant, drawn without replacement with probability
       proportional to ``appeal * exp(<user, item>)`` (the latent model of :func:`synthetic`).
    2. Exposure biased by popularity: a relevant item is observed with probability
       ``o_i = max(min_observation, (n_i / max_j n_j) ** exponent)``, ``n_i`` the number of
       users who find it relevant (Yang, Cui, Gao, Xiang, Zhu, Estrin (2018), RecSys: the
       observation propensity grows as a power of the item's popularity).
    3. Each observed interaction goes to ``test`` with probability ``test_share``, else
       to ``train``. A relevant item not in train is therefore in test with probability
       ``propensity_i = test_share * o_i / (1 - (1 - test_share) * o_i)``, exactly.

    Everything is a function of ``seed``.

    >>> d = biased_feedback(n_users=40, n_items=60, seed=1)
    >>> d.train.num_rows + d.test.num_rows <= d.relevant.num_rows, 0 < min(d.propensity.values()) <= 1
    (True, True)
    """
    n_users = _check("n_users", n_users, 2)
    n_items = _check("n_items", n_items, 2)
    for name, value, lo, hi in (("relevant_per_user", relevant_per_user, 1.0, float(n_items)),
                                ("alpha", alpha, 0.0, 10.0), ("exponent", exponent, 0.0, 10.0),
                                ("min_observation", min_observation, 1e-6, 1.0), ("test_share", test_share, 1e-6,
                                                                                   1.0 - 1e-6)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= float(value) <= hi:
            raise ParameterError(f"The {name!r} parameter of biased_feedback must be a number in [{lo:g}, {hi:g}]. "
                                 f"Got {value!r} instead.")
    rng = np.random.default_rng([seed, 17])
    user_vec, item_vec, pop, _cats = _model(rng, n_users, n_items, 8, float(alpha))
    logits = np.log(pop)[None, :] + 3.0 * user_vec @ item_vec.T
    sizes = np.clip(rng.poisson(relevant_per_user, size=n_users), 2, n_items - 1)
    gumbel = rng.gumbel(size=(n_users, n_items))
    order = np.argsort(-(logits + gumbel), axis=1)
    users = np.repeat(np.arange(n_users), sizes)
    items = np.concatenate([order[u, :sizes[u]] for u in range(n_users)])
    counts = np.bincount(items, minlength=n_items).astype(np.float64)
    obs = np.maximum(float(min_observation), (counts / max(counts.max(), 1.0)) ** float(exponent))
    observed = rng.random(len(items)) < obs[items]
    to_test = rng.random(len(items)) < float(test_share)
    tr = observed & ~to_test
    te = observed & to_test
    prop = float(test_share) * obs / (1.0 - (1.0 - float(test_share)) * obs)

    def table(mask: np.ndarray) -> pa.Table:
        return pa.table({"user": pa.array((users[mask] + 1).astype(np.int64)),
                         "item": pa.array((items[mask] + 1).astype(np.int64))})

    ids = [str(i + 1) for i in range(n_items)]
    return BiasedFeedback(
        relevant=table(np.ones(len(items), dtype=bool)), train=table(tr), test=table(te), truth=table(~tr),
        propensity=dict(zip(ids, prop.tolist(), strict=True)), observation=dict(zip(ids, obs.tolist(), strict=True)),
        params={"n_users": n_users, "n_items": n_items, "seed": seed, "relevant_per_user": relevant_per_user,
                "alpha": alpha, "exponent": exponent, "min_observation": min_observation, "test_share": test_share})
