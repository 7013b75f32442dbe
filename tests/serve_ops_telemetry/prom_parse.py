"""Parses Prometheus/OpenMetrics text (standard input) with the official Python client's
parsers and prints every sample as JSON: [{"name", "labels", "value"}]. The text must
parse with both the Prometheus text parser and the stricter OpenMetrics one."""
import json
import sys

from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as openmetrics_families,
)
from prometheus_client.parser import text_string_to_metric_families

text = sys.stdin.read()
list(openmetrics_families(text))  # raises on anything OpenMetrics does not allow
out = []
for family in text_string_to_metric_families(text):
    for s in family.samples:
        out.append({"family": family.name, "type": family.type, "name": s.name,
                    "labels": s.labels, "value": s.value})
json.dump(out, sys.stdout)
