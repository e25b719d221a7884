"""``merged_filters``: None is no value on either side, as its docstring says."""

from __future__ import annotations

from dealframe.private.filters import merged_filters


def test_a_none_keyword_leaves_the_dicts_value():
    assert merged_filters({"deal_type": ["M&A"]}, {"deal_type": None}) == {"deal_type": ["M&A"]}


def test_a_none_in_the_dict_leaves_the_keywords_value():
    assert merged_filters({"deal_type": None}, {"deal_type": ["M&A"]}) == {"deal_type": ["M&A"]}
