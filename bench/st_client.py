"""One browser tab, without the drawing: Streamlit's own websocket protocol, spoken as its frontend speaks it.

    tab = Tab("http://127.0.0.1:8741"); await tab.connect(); run = await tab.open("similarity")
    run = await tab.set({"similarity_sentence": "the cat sat"})      # widgets by their user key
    run = await tab.set({"heads_W1": False})                          # in an st.fragment: a fragment rerun
    again = Tab(tab.url, cookies=tab.cookies, session_id=tab.session_id)  # the same browser, reconnecting

The handshake, as read in streamlit/web/server/starlette/starlette_websocket.py and the frontend bundle:
ws://host/_stcore/stream with the subprotocols ["streamlit", <XSRF token or "PLACEHOLDER_AUTH_TOKEN">]; the token
only matters for st.login's auth cookie, so a class of anonymous users sends the placeholder, as the browser does
when it has no `_streamlit_xsrf` cookie. Every interaction is a BackMsg `rerun_script` (a ClientState: the URL's
query string, the page's script hash or, on a first visit, its URL path as page_name, the widget states and, for an
`st.fragment`, its id). The server answers with ForwardMsgs: new_session (a full run starts), navigation,
page_info_changed (the URL's new query string), deltas (elements; a widget's id ends with its user key), auto_rerun
(a fragment's run_every), and script_finished. A run interrupted by `st.rerun()` ends FINISHED_EARLY_FOR_RERUN
and goes on: the interaction ends at the next script_finished that is not that.

Before the websocket, a tab loads the app's page over HTTP as a browser does, keeps the cookies the answer sets
and sends them with the handshake. Behind deploy/serve.py's nginx that cookie is what keeps a browser on one app
process; the X-Served-By header nginx adds says which one (`page_served_by`, `served_by`). Straight to one server
nothing changes: Streamlit sets no cookie there. A reconnect that passes the old tab's cookies and session id
resumes the same server session, as the frontend does after a lost connection.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

EARLY_FOR_RERUN = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_EARLY_FOR_RERUN")
COMPILE_ERROR = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_WITH_COMPILE_ERROR")
BROWSER_MEMORY = "attention_browser_memory"  # ui/browser_memory.py's component: the cookies a browser would keep
# The WidgetState field each element kind sends its value in (streamlit/elements/widgets/*.py: value_type=).
VALUE_FIELDS = {
    "checkbox": "bool_value",
    "text_input": "string_value",
    "text_area": "string_value",
    "radio": "string_value",
    "selectbox": "string_value",
    "number_input": "double_value",
    "button": "trigger_value",
}


class DisconnectedError(Exception):
    """The server closed the websocket."""


@dataclass
class Widget:
    id: str  # "$$ID-<hash>-<user key>", as the server made it
    kind: str  # the Element oneof: checkbox (toggles too), text_input, radio, …
    fragment_id: str  # "" outside an st.fragment
    proto: object  # the element's own message (options, value, disabled…)


@dataclass
class Run:
    """One interaction: from sending the rerun_script to the script_finished that ends it."""

    seconds: float = 0.0
    messages: int = 0
    received_bytes: int = 0
    exceptions: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # what the run wrote: headings, alerts, toasts, markdown
    not_found: bool = False
    compile_error: bool = False

    @property
    def ok(self) -> bool:
        return not (self.exceptions or self.not_found or self.compile_error)


class Tab:
    def __init__(
        self, url: str, *, timeout_s: float = 30.0, cookies: dict[str, str] | None = None, session_id: str = ""
    ) -> None:
        self.url, self.timeout_s = url.rstrip("/"), timeout_s
        self.cookies = dict(cookies or {})  # name → value, as the browser keeps them for this site
        self.session_id = session_id  # the server's id of this tab's session: given, it is resumed at connect
        self.page_served_by = ""  # X-Served-By of the page's HTTP answer: the app process behind a proxy, or ""
        self.served_by = ""  # X-Served-By of the websocket handshake's answer (101)
        self.widgets: dict[str, Widget] = {}  # by user key, as the last run drew them
        self.pages: dict[str, str] = {}  # URL path → page script hash, from the navigation message
        self.page_hash = ""
        self.query_string = ""
        self.auto_rerun: tuple[float, str] | None = None  # (interval in s, fragment id) of a run_every fragment
        self._states: dict[str, WidgetState] = {}  # the values this tab set, by widget id
        self._ws = None
        self._reader: asyncio.Task | None = None
        self._run: Run | None = None
        self._finished: asyncio.Future | None = None
        self._seen: set[str] = set()
        self._full_run = True

    async def connect(self, query: str = "") -> None:
        """The page over HTTP (in a thread: urllib blocks), then the websocket with the cookies it set. `query` is
        the page URL's query string (e.g. "new_seat=1", which deploy/nginx.conf answers with a new cookie)."""
        self.page_served_by, cookies = await asyncio.to_thread(self._load_page, query)
        self.cookies.update(cookies)
        ws_url = self.url.replace("http", "ws", 1) + "/_stcore/stream"
        # The third entry, a previous session's id, asks the server to resume that session (a reconnect).
        tokens = ["streamlit", "PLACEHOLDER_AUTH_TOKEN", *([self.session_id] if self.session_id else [])]
        self._ws = await websockets.connect(
            ws_url,
            subprotocols=tokens,
            origin=self.url,
            additional_headers={"Cookie": self._cookie_header()} if self.cookies else None,
            max_size=None,
            ping_interval=None,
        )
        self.served_by = self._ws.response.headers.get("X-Served-By", "")
        self._reader = asyncio.create_task(self._read())

    def _load_page(self, query: str = "") -> tuple[str, dict[str, str]]:
        """(X-Served-By, the cookies set): only each cookie's name=value, as a browser sends them back."""
        headers = {"Cookie": self._cookie_header()} if self.cookies else {}
        request = urllib.request.Request(self.url + "/" + (f"?{query}" if query else ""), headers=headers)
        with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
            response.read()
            set_cookies = response.headers.get_all("Set-Cookie") or []
            cookies = dict(header.split(";", 1)[0].strip().partition("=")[::2] for header in set_cookies)
            return response.headers.get("X-Served-By", ""), cookies

    def _cookie_header(self) -> str:
        return "; ".join(f"{name}={value}" for name, value in self.cookies.items())

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()

    async def open(self, url_path: str) -> Run:
        """A first visit to host/url_path: the browser knows only the path (page_name), not the page's hash."""
        return await self.rerun(page_name=url_path)

    async def switch(self, url_path: str) -> Run:
        """A click on a page in the sidebar navigation."""
        self.query_string = ""
        return await self.rerun(page_hash=self.pages[url_path])

    async def set(self, values: dict[str, object], *, auto: bool = False) -> Run:
        """Set widgets by user key (a button: True presses it) and rerun; a fragment's widgets rerun only it."""
        fragment_ids = {self.widgets[key].fragment_id for key in values}
        fragment_id = fragment_ids.pop() if len(fragment_ids) == 1 else ""
        for key, value in values.items():
            widget = self.widgets[key]
            state = WidgetState(id=widget.id)
            setattr(state, VALUE_FIELDS[widget.kind], value)
            self._states[widget.id] = state
            self._write_url(widget, value)
        run = await self.rerun(fragment_id=fragment_id)
        for key in values:  # a trigger is true for one run only
            if self.widgets.get(key) is not None and self.widgets[key].kind == "button":
                self._states.pop(self.widgets[key].id, None)
        return run

    def _write_url(self, widget: Widget, value: object) -> None:
        """A widget bound to the URL (bind="query-params") is written there by the frontend itself, at once; the
        next rerun_script carries it in its query string."""
        param = getattr(widget.proto, "query_param_key", "")
        if not param:
            return
        text = str(value).lower() if isinstance(value, bool) else f"{value:g}" if isinstance(value, float) else value
        params = [(k, v) for k, v in urllib.parse.parse_qsl(self.query_string, keep_blank_values=True) if k != param]
        self.query_string = urllib.parse.urlencode([*params, (param, text)])

    def value(self, key: str) -> object:
        """A widget's current value: the one this tab set, else the server's (set_value), else its default."""
        widget = self.widgets[key]
        if widget.id in self._states:
            state = self._states[widget.id]
            return getattr(state, state.WhichOneof("value"))
        proto = widget.proto
        return proto.value if getattr(proto, "set_value", False) else proto.default

    async def tick(self) -> Run:
        """What the browser sends every `run_every` seconds for an auto-rerunning fragment."""
        _, fragment_id = self.auto_rerun
        return await self.rerun(fragment_id=fragment_id, auto=True)

    async def rerun(
        self, *, page_name: str = "", page_hash: str = "", fragment_id: str = "", auto: bool = False
    ) -> Run:
        message = BackMsg()
        state = message.rerun_script
        state.query_string, state.page_name = self.query_string, page_name
        state.page_script_hash = page_hash or (self.page_hash if not page_name else "")
        state.fragment_id, state.is_auto_rerun = fragment_id, auto
        state.widget_states.widgets.extend(self._states.values())
        self._run, self._finished = Run(), asyncio.get_running_loop().create_future()
        self._seen = set()
        self._full_run = not fragment_id
        started = time.perf_counter()
        await self._ws.send(message.SerializeToString())
        try:
            await asyncio.wait_for(asyncio.shield(self._finished), self.timeout_s)
        finally:
            self._run.seconds = time.perf_counter() - started
        return self._run

    async def wait_finished(self, timeout_s: float) -> None:
        """After a timeout: wait (up to timeout_s more) for the late script_finished, so runs never overlap."""
        if self._finished is not None and not self._finished.done():
            await asyncio.wait_for(asyncio.shield(self._finished), timeout_s)

    async def _read(self) -> None:
        try:
            async for payload in self._ws:
                self._receive(ForwardMsg.FromString(payload), len(payload))
        except websockets.ConnectionClosed:
            pass
        if self._finished is not None and not self._finished.done():
            self._finished.set_exception(DisconnectedError())

    def _receive(self, message: ForwardMsg, size: int) -> None:
        run, kind = self._run, message.WhichOneof("type")
        if run is not None:
            run.messages += 1
            run.received_bytes += size
        if kind == "new_session":  # a run starts: a full one unless its metadata names fragments
            self.session_id = message.new_session.initialize.session_id
            # A fragment's st.rerun() turns a fragment run into a full one, so the message, not the request, says.
            self._full_run = not message.metadata.run.fragment_ids
            if self._full_run:  # the frontend drops its run_every timers on every full run
                self.auto_rerun = None
        elif kind == "navigation":
            self.pages = {page.url_pathname: page.page_script_hash for page in message.navigation.app_pages}
            self.page_hash = message.navigation.page_script_hash
        elif kind == "page_info_changed":
            self.query_string = message.page_info_changed.query_string
        elif kind == "auto_rerun":
            self.auto_rerun = (message.auto_rerun.interval, message.auto_rerun.fragment_id)
        elif kind == "stop_auto_rerun":
            self.auto_rerun = None
        elif kind == "page_not_found" and run is not None:
            run.not_found = True
        elif kind == "delta" and message.delta.WhichOneof("type") == "new_element":
            self._element(message.delta.new_element, message.delta.fragment_id)
        elif kind == "script_finished" and message.script_finished != EARLY_FOR_RERUN:
            if run is not None:
                run.compile_error = message.script_finished == COMPILE_ERROR
            self._forget_undrawn()
            if self._finished is not None and not self._finished.done():
                self._finished.set_result(None)

    def _element(self, element: object, fragment_id: str) -> None:
        kind = element.WhichOneof("type")
        if kind == "bidi_component" and element.bidi_component.component_name.endswith(BROWSER_MEMORY):
            self._keep_cookies(element.bidi_component.json)
            return
        if kind == "exception" and self._run is not None:
            self._run.exceptions.append(f"{element.exception.type}: {element.exception.message}")
            return
        if kind in ("heading", "alert", "toast", "markdown") and self._run is not None:
            self._run.texts.append(getattr(element, kind).body)
        widget_id = getattr(getattr(element, kind), "id", "")
        if widget_id.startswith("$$ID-"):
            user_key = widget_id.split("-", 2)[2]
            self.widgets[user_key] = Widget(widget_id, kind, fragment_id, getattr(element, kind))
            self._seen.add(user_key)

    def _keep_cookies(self, data: str) -> None:
        """What the app's browser-memory script does in a browser (ui/browser_memory.py): keep the cookies it is
        given (the value as the script writes it, already URL-encoded), forget those it clears. A reconnect then
        sends them, as a reloaded tab does."""
        try:
            cookies = json.loads(data or "{}").get("cookies") or {}
        except ValueError:
            return
        for name, value in cookies.items():
            if value is None:
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = str(value)

    def _forget_undrawn(self) -> None:
        """As the frontend does after a full run: widgets the run did not draw are gone, with their values."""
        if not self._full_run:
            return
        for key in [key for key in self.widgets if key not in self._seen]:
            self._states.pop(self.widgets.pop(key).id, None)
