"""Reads stderr text on stdin; exits 1 unless every line is one JSON object with a string
`timestamp` (RFC 3339, UTC), a `level` of info/warn/error and a string `message`.
Prints the parsed lines as one JSON array."""
import datetime
import json
import sys

out = []
for n, line in enumerate(sys.stdin.read().splitlines(), 1):
    try:
        v = json.loads(line)
    except ValueError as e:
        sys.exit(f"line {n} is not JSON ({e}): {line!r}")
    if not isinstance(v, dict):
        sys.exit(f"line {n} is not an object: {line!r}")
    ts, level, msg = v.get("timestamp"), v.get("level"), v.get("message")
    if not isinstance(ts, str) or not ts.endswith("Z"):
        sys.exit(f"line {n}: timestamp {ts!r}")
    datetime.datetime.fromisoformat(ts.replace("Z", "+00:00"))
    if level not in ("info", "warn", "error") or not isinstance(msg, str):
        sys.exit(f"line {n}: level {level!r} message {msg!r}")
    out.append(v)
print(json.dumps(out))
