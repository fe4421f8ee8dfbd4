"""Attention Lab: the router. Page config and navigation; the pages live in pages/.

``streamlit run app.py`` finds ``app`` below, a ``st.App``: the web server that runs this same file as the
script of every session (``route``), with one web route of its own, a class's drawn view
(``classroom.routes``, docs/architecture.md "Classes")."""

from pathlib import Path

import streamlit as st

from ui.streamlit_internals import in_script_run

ICON = Path(__file__).resolve().parent / "docs" / "icon.png"  # a local file: the browser fetches nothing from outside


def route() -> None:
    """One run of a session: page config, the navigation, the bars around the page, the page."""
    from ui.classroom_bar import classroom_bar
    from ui.errors import said_shortly
    from ui.page_url import keep_page_keys, page_run, remember_url
    from ui.presentation import sidebar_at_start
    from ui.sharing import share_view
    from ui.lessons import arrive, lesson_bar, record_step_view
    from ui.pages_index import PAGE_SCRIPTS, PAGES
    from ui.rooms.follow import after_page, class_strip, follow_teacher, join_from_link
    from ui.rooms.teaching import bars_write, class_button, page_begins, start_drawing

    st.set_page_config(
        page_title="Attention Lab", page_icon=str(ICON), layout="wide", initial_sidebar_state=sidebar_at_start()
    )  # from the session's first link

    sections: dict[str, list] = {}
    for page in PAGES:
        sections.setdefault(page.section, []).append(
            st.Page(page.path, title=page.title, icon=page.icon, url_path=page.url_path, default=page.is_home)
        )

    current = st.navigation(sections)
    keep_page_keys(current.url_path)  # the URL holds this page's own keys, none another page's controls left
    join_from_link()  # ?room=CODE: this session follows a class
    follow_teacher(current.url_path)  # a student's run opens the teacher's view, if it changed
    start_drawing()  # a teacher's run records what it draws, for the class
    arrive(current.url_path)  # a lesson step's link restores its view exactly
    share, teach = classroom_bar(current)
    class_button(teach, current.url_path)
    class_strip(current.url_path)
    page_begins()  # what is written from here on is the page's (a teacher's view, for the class): a lesson's too
    lesson_bar(PAGE_SCRIPTS)
    try:
        with said_shortly(current.url_path), page_run(current.url_path):  # the keys it draws are its controls'
            current.run()
    finally:  # also after a page stops early (st.stop): the link then holds what it has drawn
        with bars_write():
            share_view(share, current.url_path)
        remember_url(current.url_path)
        record_step_view()  # a lesson step's view as it opened, for the bar of later runs
        after_page(current.url_path)


if in_script_run(__name__):
    route()
else:  # imported by the web server: the app, with the route of a class's drawn view
    from classroom.routes import class_routes
    from ui.rooms.membership import room_store
    from ui.streamlit_internals import log_moved

    log_moved()
    app = st.App(
        __file__,
        routes=class_routes(
            is_teacher=lambda code, secret: room_store().is_teacher(code, secret),
            is_student=lambda code, student: room_store().is_student(code, student),
            base_path=st.get_option("server.baseUrlPath"),
        ),
    )
