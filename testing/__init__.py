"""What the browser tests (tests/e2e) and the benchmarks (bench/) share: real app servers and a headless
Chromium. Nothing here imports the app."""
