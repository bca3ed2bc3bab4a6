"""Options shown translated on widgets bound to the URL (ui/linked_options.py): a link names an option by the label
its language shows, and a link made in one language opens with the same settings in the other (lessons and shared
links name them in English)."""

from __future__ import annotations

from tests.conftest import assert_clean, open_framed_link
from ui.i18n import catalog


def test_an_english_link_opens_in_arabic_with_its_settings_named_in_arabic() -> None:
    at = open_framed_link("similarity", lang="ar", similarity_metric="cosine", similarity_embedding="one-hot")
    assert_clean(at)
    assert at.radio(key="similarity_metric").value == "cosine"
    assert at.sidebar.radio(key="similarity_embedding").value == "one-hot"
    arabic = catalog("ar").singular
    assert at.query_params["similarity_metric"] in (arabic["cosine"], [arabic["cosine"]])  # the link now says it so


def test_an_arabic_link_opens_in_english_with_the_same_settings() -> None:
    arabic = catalog("ar").singular
    at = open_framed_link("word_order", lang="en", word_order_how=arabic["swapping two words"])
    assert_clean(at)
    assert at.radio(key="word_order_how").value == "swapping two words"
    head_3 = arabic["head {head}"].format(head=3)
    at = open_framed_link(
        "trainable", lang="en", trainable_quiz="true", trainable_heads="4", trainable_quiz_head=head_3
    )
    assert_clean(at)
    assert at.selectbox(key="trainable_quiz_head").value == "head 3"
