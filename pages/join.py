"""Join a live class: a student's phone answers the teacher's question and sees the model's answer at the reveal."""

import streamlit as st

from ui.i18n import _
from ui.live_class.remote import remote_control
from ui.live_class.student import join_class
from ui.navigation import ensure_app_frame

ensure_app_frame()

st.title(_("Join a live class"))
join_class()
remote_control()  # a teacher's phone as the class's remote
