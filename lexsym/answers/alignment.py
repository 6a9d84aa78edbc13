"""Matching a model's asset descriptions to the case's, one to one (rapidfuzz partial_ratio)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from rapidfuzz import fuzz

# --------------------------------------------------------------------------------------------------------
# Asset alignment
# --------------------------------------------------------------------------------------------------------


def _asset_norm(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def align_assets(predicted: Sequence[str], actual: Sequence[str], threshold: float = 90) -> dict[str, str]:
    """A one-to-one map from an answer's asset keys to the case's descriptions.

    First, keys equal to a description after case folding and whitespace collapsing are matched, in the
    order of `predicted`. Then every remaining pair whose `rapidfuzz.fuzz.partial_ratio` (on the normalised
    texts) is at least `threshold` is a candidate; candidates are taken greedily by descending score, and a
    key or description already taken is skipped, so no description is matched twice and no key twice.
    Ties in partial_ratio (common: a short key is a 100 partial match of several descriptions that contain
    it) go to the pair with the higher full `fuzz.ratio`, then to the earlier key, then to the earlier
    description. Keys that match nothing are absent from the result; repeated keys count once.
    """
    keys = list(dict.fromkeys(predicted))
    descriptions = list(actual)
    normal = [_asset_norm(d) for d in descriptions]
    by_norm: dict[str, list[int]] = defaultdict(list)
    for index, text in enumerate(normal):
        by_norm[text].append(index)
    result: dict[str, str] = {}
    taken: set[int] = set()
    for key in keys:
        free = [index for index in by_norm.get(_asset_norm(key), ()) if index not in taken]
        if free:
            result[key] = descriptions[free[0]]
            taken.add(free[0])
    candidates = []
    for key_index, key in enumerate(keys):
        if key in result:
            continue
        key_norm = _asset_norm(key)
        for index, text in enumerate(normal):
            if index in taken:
                continue
            score = fuzz.partial_ratio(key_norm, text)
            if score >= threshold:
                candidates.append((-score, -fuzz.ratio(key_norm, text), key_index, index))
    for _, _, key_index, index in sorted(candidates):
        if keys[key_index] in result or index in taken:
            continue
        result[keys[key_index]] = descriptions[index]
        taken.add(index)
    return result
