"""The attention explainer: `streamlit run app.py`."""

import streamlit as st

st.set_page_config(page_title="The attention explainer", page_icon="🔍", layout="wide")

navigation = st.navigation(
    [
        st.Page("pages/idea.py", title="The idea", url_path="idea", default=True),
        st.Page("pages/similarity.py", title="Similarity: V·Vᵀ", url_path="similarity"),
        st.Page("pages/trainable.py", title="Trainable attention: W1, W2, W3", url_path="trainable"),
    ]
)
st.sidebar.caption(
    "Attention is each word becoming a mix of the words it resembles. Start with raw similarity, "
    "then let attention learn its own views with W1, W2 and W3 (others call them Q, K, V)."
)
navigation.run()
