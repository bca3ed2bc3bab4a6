"""One step of the story on screen: heading, formula, shapes, a sentence of explanation, the heatmap."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from attention_core.figures import CAPTIONS, MatrixKind


def show_step(
    heading: str,
    formula: str,
    shape: str,
    explanation: str,
    figure: go.Figure,
    kind: MatrixKind,
    key: str,
) -> None:
    st.subheader(heading)
    st.latex(formula)
    st.caption(f"Shapes: {shape}")
    st.markdown(explanation)
    st.plotly_chart(figure, key=key, config={"displaylogo": False})
    st.caption(CAPTIONS[kind])


def flag_unknown_words(labels: list[str], known: tuple[bool, ...]) -> None:
    unknown = [w for w, ok in zip(labels, known, strict=True) if not ok]
    if unknown:
        st.warning(
            "Not in the embedding's vocabulary, so they share one [UNK] vector (marked (?) on the axes): "
            + ", ".join(unknown)
        )
