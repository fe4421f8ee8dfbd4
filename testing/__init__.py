"""What the browser tests (tests/e2e), the tests of several app servers and the benchmarks (bench/) share:
real app servers, a headless Chromium, a Redis for the rooms (redis_server) and nginx in front of the app
servers as deployed (balancer). Nothing here imports the app."""
