"""A suffix-less ``cache_path`` whose earlier cache file is left behind is not silent.

Earlier releases wrote ``cache_path="/data/http_cache"`` to ``/data/http_cache.sqlite``; the
file written is now ``/data/http_cache`` exactly. Upgrading users then started on a cold cache
without a word, and the old file (cached answers) was never read, cleared or pruned again. The
first opening of the new file warns once, naming both files; the old one is left untouched.
"""

from __future__ import annotations

import hashlib
import warnings

import pytest

import dealframe
from dealframe.notices import DealframeWarning


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_earlier_sqlite_file_of_a_suffixless_path_is_named_once(sandbox, tmp_path):
    new, earlier = tmp_path / "http_cache", tmp_path / "http_cache.sqlite"
    settings = {"cache_enabled": True, "progress": False}
    # the file an earlier release wrote for cache_path=.../http_cache
    with dealframe.Client.for_sandbox(sandbox, cache_path=earlier, **settings) as client:
        client.public.search(regions=["Oceania"])
    before = _digest(earlier)

    with pytest.warns(DealframeWarning) as caught:
        client = dealframe.Client.for_sandbox(sandbox, cache_path=new, **settings)
    with client:
        answer = client.public.search(regions=["Oceania"])
    said = [w for w in caught if issubclass(w.category, DealframeWarning)]
    assert len(said) == 1, [str(w.message) for w in said]
    text = str(said[0].message)
    assert str(new) in text and str(earlier) in text, text
    assert "no longer read" in text and "cached answers" in text and "delete" in text, text
    assert said[0].filename == __file__  # points at the line that built the client
    assert answer.attrs["from_cache"] is False  # the earlier file is not read

    with warnings.catch_warnings():
        warnings.simplefilter("error", DealframeWarning)  # said once: the new file exists now
        with dealframe.Client.for_sandbox(sandbox, cache_path=new, **settings) as client:
            assert client.public.search(regions=["Oceania"]).attrs["from_cache"] is True
    assert _digest(earlier) == before  # neither read into nor renamed nor cleared
    assert sorted(p.name for p in tmp_path.iterdir()) == ["http_cache", "http_cache.sqlite"]


@pytest.mark.parametrize("name", ["http_cache.db", "http_cache.sqlite"])
def test_a_path_with_a_suffix_does_not_warn(sandbox, tmp_path, name):
    (tmp_path / f"{name}.sqlite").touch()  # not what an earlier release made of this name
    with warnings.catch_warnings():
        warnings.simplefilter("error", DealframeWarning)
        with dealframe.Client.for_sandbox(
            sandbox, cache_enabled=True, cache_path=tmp_path / name, progress=False
        ) as client:
            client.public.search(regions=["Oceania"])
