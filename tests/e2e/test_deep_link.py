"""A shared link opened as the very first request of a fresh server shows the real app."""

from tests.e2e.conftest import RANDOM_MULTI_HEAD, assert_no_exception, streamlit_server, wait_idle


def test_first_request_deep_link_goes_through_the_navigation(page):
    with streamlit_server() as url:
        page.goto(f"{url}/{RANDOM_MULTI_HEAD}&heads=8")
        wait_idle(page)
        page.wait_for_selector("[data-testid=stSidebarNav]")
        nav = page.locator("[data-testid=stSidebarNav]").inner_text()
        # app.py's sections and titles, not the file names of pages/
        assert "Multi-head attention" in nav and "Attention" in nav and "multi head" not in nav
        assert "app" not in nav.split()
        assert page.get_by_role("heading", name="Multi-head attention").count() == 1
        assert_no_exception(page)
