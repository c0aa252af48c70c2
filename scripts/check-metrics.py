#!/usr/bin/env python3
"""Parses Breakwater's /metrics text (stdin) with the reference Prometheus parser and checks the
families and labels docs/OPERATING.md lists. Exit 0 when all hold; else prints each problem."""
import sys

from prometheus_client.parser import text_string_to_metric_families

text = sys.stdin.read()
families = {family.name: family for family in text_string_to_metric_families(text)}
problems = []


def need(name, kind, labels=()):
    family = families.get(name)
    if family is None:
        problems.append(f"missing family {name}")
        return []
    if family.type != kind:
        problems.append(f"{name}: type {family.type}, expected {kind}")
    for sample in family.samples:
        for label in labels:
            if label not in sample.labels:
                problems.append(f"{name}: sample {sample.name} without label {label}")
    return family.samples


# prometheus_client names counter families without the _total suffix.
need("breakwater_requests", "counter", ["cache"])
need("breakwater_upstream_requests", "counter")
upstream_errors = need("breakwater_upstream_errors", "counter", ["reason"])
reasons = {sample.labels.get("reason") for sample in upstream_errors}
if reasons != {"refused", "reset", "timeout", "tls", "malformed", "5xx"}:
    problems.append(f"breakwater_upstream_errors_total reasons: {sorted(r for r in reasons if r)}")
need("breakwater_upstream_timeouts", "counter")
need("breakwater_cache_entries", "gauge")
need("breakwater_cache_bytes", "gauge")
need("breakwater_cache_evictions", "counter")
need("breakwater_apq_entries", "gauge")
need("breakwater_coalesced", "counter")
need("breakwater_request_duration_seconds", "histogram", ["operation", "cache"])
need("breakwater_upstream_duration_seconds", "histogram", ["operation", "cache"])
need("breakwater_bypass", "counter", ["reason"])
reloads = need("breakwater_config_reloads", "counter", ["result"])
if {sample.labels.get("result") for sample in reloads} != {"success", "failure"}:
    problems.append("breakwater_config_reloads_total lacks a result series")
stamp = need("breakwater_config_last_reload_success_timestamp_seconds", "gauge")
if stamp and stamp[0].value <= 0:
    problems.append("breakwater_config_last_reload_success_timestamp_seconds is not a time")
need("breakwater_responses", "counter", ["status"])
need("breakwater_errors", "counter", ["code"])
need("breakwater_operation_requests", "counter", ["operation"])
need("breakwater_client_requests", "counter", ["client_name", "client_version"])
build = need("breakwater_build_info", "gauge", ["version"])
if build and build[0].value != 1:
    problems.append("breakwater_build_info is not 1")
need("process_resident_memory_bytes", "gauge")
need("process_open_fds", "gauge")
need("process_cpu_seconds", "counter")
need("process_start_time_seconds", "gauge")

for line in sys.argv[1:]:
    # Extra expectations: "name{label=value}=number" checks one sample's value.
    series, _, value = line.rpartition("=")
    name, _, label_text = series.partition("{")
    wanted = dict(pair.split("=", 1) for pair in label_text.rstrip("}").split(",") if pair)
    found = [
        s for f in families.values() for s in f.samples
        if s.name == name and all(s.labels.get(k) == v for k, v in wanted.items())
    ]
    if not found or found[0].value != float(value):
        problems.append(f"{series}: {found[0].value if found else 'absent'}, expected {value}")

if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"ok: {len(families)} families")
