"""What the browser tests (tests/e2e), the tests of several app servers and the benchmarks (bench/) share:
real app servers, a headless Chromium, a Redis for the rooms (redis_server), nginx in front of the app
servers as deployed (balancer), one way to wait for them (processes.wait_until) and a client of Streamlit's
websocket that speaks as a browser tab (streamlit_client). Nothing here imports the app."""
