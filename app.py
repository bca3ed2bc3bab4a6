"""The attention explainer: `streamlit run app.py`. The pages live in pages/, their list in ui/navigation.py."""

from ui.navigation import frame_app

frame_app().run()
