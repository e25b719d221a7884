"""The generator's quicker helpers give exactly what the plain Python forms they replaced gave.

Same seed, same data (docs/sandbox.md): the ids, slugs and list fields of the sandbox's records
must not move when the way they are computed gets cheaper.
"""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from dealframe.sandbox.models import draws, names


@pytest.mark.parametrize("n", [1, 2, 5, 1_000])
@pytest.mark.parametrize("seed", [0, 7, 123])
def test_uuids_are_those_of_the_uuid_module_from_the_same_bytes(seed, n):
    rng = np.random.default_rng(seed)
    raw = np.random.default_rng(seed).bytes(16 * n)
    expected = [str(uuid.UUID(bytes=raw[16 * i : 16 * i + 16], version=4)) for i in range(n)]
    assert draws.uuids(rng, n) == expected
    assert rng.bytes(4) == np.random.default_rng(seed).bytes(16 * n + 4)[-4:]  # same draws used


@pytest.mark.parametrize(
    "name",
    ["Novalum Analytics GmbH & Co.", "İstanbul Ünİ K²3 ǅx", "\u212aelvin", "Straße", "Ａｂｃ 12"],
)
def test_slugs_keep_the_lower_case_ascii_letters_and_digits(name):
    assert names.slugify(name) == "".join(
        ch for ch in name.lower() if ch.isascii() and ch.isalnum()
    )


@pytest.mark.parametrize(("lo", "hi", "words"), [(0, 3, 12), (1, 2, 12), (1, 3, 12), (2, 5, 3)])
def test_subsets_are_the_first_picks_of_each_row_sorted(lo, hi, words):
    """(With more members asked for than the vocabulary holds, a row is the whole of it: the
    flat form read the rows with the wrong stride, giving repeats and empty rows.)"""
    vocab = tuple(f"v{i}" for i in range(words))
    got = draws.subsets(np.random.default_rng(5), vocab, 400, lo, hi)
    rng = np.random.default_rng(5)
    k = rng.integers(lo, hi + 1, 400)
    order = np.argsort(rng.random((400, len(vocab))), axis=1)
    assert got == [
        [vocab[j] for j in sorted(row[:kk])] for row, kk in zip(order.tolist(), k.tolist())
    ]
