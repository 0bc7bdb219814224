"""Benchmarks: `make bench` runs every suite, prints a table each and writes JSON to bench/results/."""
