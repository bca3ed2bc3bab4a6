"""The attention explainer: `streamlit run app.py`. The pages live in pages/, their list in ui/page_registry.py,
the frame around them in ui/navigation.py."""

from ui.capacity import admit_or_explain, telling_when_slow
from ui.navigation import frame_app

admit_or_explain()  # a full server says so, instead of answering every student slowly
with telling_when_slow():
    frame_app().run()
