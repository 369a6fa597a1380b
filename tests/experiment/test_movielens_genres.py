"""MovieLens' u.item genres (data/u.item: a hand-written file in its layout, latin-1) and generated
MovieLens-shaped categories, as calibration reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

from rankmeter import InputError, ParameterError
from rankmeter.datasets import (
    GENRES,
    ML100K_GENRES,
    movielens100k_like,
    read_movielens_genres,
    synthetic,
    write_uitem,
)

DATA = Path(__file__).parent / "data"


def test_reads_the_hand_written_u_item() -> None:
    g = read_movielens_genres(DATA / "u.item")
    assert g == {
        "1": frozenset({"Animation", "Children's", "Comedy"}),
        "2": frozenset({"Drama"}),  # the title's latin-1 accents (Café Lumière) are read, not refused
        "3": frozenset({"Action", "Crime", "Thriller"}),
        "4": frozenset(),  # no flag: an empty set (calibration leaves the item out)
        "5": frozenset({"unknown"}),  # the unknown flag is kept as written
        "06": frozenset({"Sci-Fi", "Western"}),  # ids are text exactly as written
    }
    # the genre names from u.genre give the same
    assert read_movielens_genres(DATA / "u.item", genres=DATA / "u.genre") == g


def test_u_item_layout_constants() -> None:
    assert len(ML100K_GENRES) == 19 and ML100K_GENRES[0] == "unknown" and ML100K_GENRES[1:] == GENRES
    assert "Children's" in GENRES


@pytest.mark.parametrize("line, message", [
    ("7|T|d||u|0|1", "expected 24 fields"),
    ("7|T|d||u|" + "|".join(["0"] * 18 + ["2"]), "genre flags must be 0 or 1; found '2'"),
    ("|T|d||u|" + "|".join(["0"] * 19), "empty movie id"),
    ("1|T|d||u|" + "|".join(["0"] * 19), "movie id '1' appears twice"),
])
def test_bad_lines_are_refused_with_their_line(tmp_path, line: str, message: str) -> None:
    p = tmp_path / "u.item"
    p.write_bytes((DATA / "u.item").read_bytes() + (line + "\n").encode("latin-1"))
    with pytest.raises(InputError, match=message) as info:
        read_movielens_genres(p)
    assert info.value.line == 7


def test_other_bad_inputs(tmp_path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_movielens_genres(tmp_path / "missing.item")
    (tmp_path / "empty.item").write_text("\n", encoding="latin-1")
    with pytest.raises(InputError, match="no movie line"):
        read_movielens_genres(tmp_path / "empty.item")
    with pytest.raises(ParameterError, match="each flag column once"):
        read_movielens_genres(DATA / "u.item", genres=["a", "a"])
    (tmp_path / "u.genre").write_text("Action|0\nDrama|2\n", encoding="latin-1")
    with pytest.raises(InputError, match="without gaps"):
        read_movielens_genres(DATA / "u.item", genres=tmp_path / "u.genre")


def test_generated_movielens_shaped_data_has_movielens_genres_and_round_trips(tmp_path) -> None:
    d = movielens100k_like(0)
    assert len(d.categories) == 1682
    assert set().union(*d.categories.values()) <= set(GENRES)
    assert all(1 <= len(c) <= 3 for c in d.categories.values())
    path = write_uitem(d, tmp_path / "u.item")
    assert read_movielens_genres(path) == d.categories
    with pytest.raises(ParameterError, match="cannot hold"):
        write_uitem({"1": {"Jazz"}}, tmp_path / "x.item")


def test_experiment_reads_u_item_as_categories_and_shows_calibration(tmp_path) -> None:
    from rankmeter.experiment import experiment

    d = synthetic(n_users=80, n_items=120, seed=5)
    path = write_uitem(d, tmp_path / "u.item")
    res = experiment(d.interactions, categories=str(path), k=5, n_resamples=100, recommenders=["popular"],
                     baseline=None)
    assert "miscalibration@5" in res.metrics and res.results["popular"].mean["miscalibration@5"] > 0
    direct = experiment(d, k=5, n_resamples=100, recommenders=["popular"], baseline=None)
    assert res.results["popular"].mean["miscalibration@5"] == direct.results["popular"].mean["miscalibration@5"]


def test_demo_on_your_movielens_files_with_u_item(tmp_path) -> None:
    """`rankmeter demo -i u.data --categories u.item` (the executable): calibration on the file's genres."""
    import json
    import subprocess
    import sys

    from rankmeter.datasets import write_udata

    d = synthetic(n_users=80, n_items=120, seed=6)
    udata, uitem = write_udata(d, tmp_path / "u.data"), write_uitem(d, tmp_path / "u.item")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "rankmeter", "demo", "-i", str(udata), "--categories", str(uitem),
                           "-k", "5", "--out", str(out), "--no-progress"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    res = json.loads((out / "results.json").read_text())
    assert res["means"]["popular"]["miscalibration@5"] > 0 and res["groups"]["info"]["order"] == ["low", "mid", "high"]
    proc = subprocess.run([sys.executable, "-m", "rankmeter", "demo", "--categories", str(uitem), "--out",
                           str(tmp_path / "o2")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "--categories goes with --interactions" in proc.stderr
