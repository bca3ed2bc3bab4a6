"""The benchmarks and reports, each run from the project's root as `python -m bench.NAME`."""
