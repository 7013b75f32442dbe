#!/usr/bin/env python3
"""Breaking changes between two OpenAPI 3.x documents, computed from the documents alone.

The oracle of tests/diff.rs's real-history test (it knows nothing of mcpdesc): given an
OLD and a NEW OpenAPI document, prints as JSON

- removedOperations: operationIds in OLD that NEW no longer has;
- newlyRequired: for operations in both, parameters (path, query, header, cookie) and
  top-level JSON request-body properties that NEW requires and OLD did not (absent or
  optional);
- removedEnumValues: for parameters and top-level JSON request-body properties in both,
  values of OLD's `enum` (or of its array items' `enum`) that NEW's `enum` lacks.

Only the standard library is used. Local `$ref`s (`#/components/...`) are resolved.
"""

import json
import sys

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def resolve(doc, node, depth=0):
    """Follows local $refs until a non-reference value (bounded)."""
    while isinstance(node, dict) and "$ref" in node and depth < 32:
        ref = node["$ref"]
        if not ref.startswith("#/"):
            return node
        target = doc
        for tok in ref[2:].split("/"):
            tok = tok.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, dict) or tok not in target:
                return node
            target = target[tok]
        node = target
        depth += 1
    return node


def operations(doc):
    """operationId -> (merged parameters by (in, name), request body or None)."""
    ops = {}
    for path, item in (doc.get("paths") or {}).items():
        item = resolve(doc, item)
        if not isinstance(item, dict):
            continue
        shared = [resolve(doc, p) for p in item.get("parameters", [])]
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, dict) or "operationId" not in op:
                continue
            params = {}
            for p in shared + [resolve(doc, p) for p in op.get("parameters", [])]:
                if isinstance(p, dict) and "name" in p and "in" in p:
                    params[(p["in"], p["name"])] = p
            body = resolve(doc, op.get("requestBody")) if op.get("requestBody") else None
            ops[op["operationId"]] = (params, body)
    return ops


def body_object(doc, body):
    """(required?, properties, required names) of a JSON object request body, or None."""
    if not isinstance(body, dict):
        return None
    content = body.get("content") or {}
    media = content.get("application/json")
    if media is None:
        media = next((v for k, v in content.items() if k.endswith("+json")), None)
    if not isinstance(media, dict):
        return None
    schema = resolve(doc, media.get("schema"))
    if not isinstance(schema, dict) or schema.get("type") != "object" or "properties" not in schema:
        return None
    props = {k: resolve(doc, v) for k, v in schema["properties"].items()}
    return bool(body.get("required")), props, set(schema.get("required", []))


def enum_values(doc, schema):
    schema = resolve(doc, schema)
    if not isinstance(schema, dict):
        return None
    if "enum" in schema:
        return schema["enum"]
    items = resolve(doc, schema.get("items"))
    if schema.get("type") == "array" and isinstance(items, dict) and "enum" in items:
        return items["enum"]
    return None


def same(a, b):
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def main(old_path, new_path):
    with open(old_path, encoding="utf-8") as f:
        old = json.load(f)
    with open(new_path, encoding="utf-8") as f:
        new = json.load(f)
    old_ops, new_ops = operations(old), operations(new)
    removed = sorted(set(old_ops) - set(new_ops))
    required, enums = [], []
    for op_id in sorted(set(old_ops) & set(new_ops)):
        (op, ob), (np, nb) = old_ops[op_id], new_ops[op_id]
        # Parameters.
        for key, p in np.items():
            q = op.get(key)
            if p.get("required") and not (q and q.get("required")):
                required.append({"operationId": op_id, "in": key[0], "name": key[1]})
            if q is None:
                continue
            a, b = enum_values(old, q.get("schema")), enum_values(new, p.get("schema"))
            if a is not None and b is not None:
                for v in a:
                    if not any(same(v, w) for w in b):
                        enums.append({"operationId": op_id, "in": key[0], "name": key[1], "value": v})
        # Top-level JSON body properties, when the body is required on both sides.
        x, y = body_object(old, ob), body_object(new, nb)
        if x and y and x[0] and y[0]:
            (_, oprops, oreq), (_, nprops, nreq) = x, y
            for name in sorted(nreq - oreq):
                if name in nprops:
                    required.append({"operationId": op_id, "in": "body", "name": name})
            for name in sorted(set(oprops) & set(nprops)):
                a, b = enum_values(old, oprops[name]), enum_values(new, nprops[name])
                if a is not None and b is not None:
                    for v in a:
                        if not any(same(v, w) for w in b):
                            enums.append({"operationId": op_id, "in": "body", "name": name, "value": v})
    json.dump(
        {"removedOperations": removed, "newlyRequired": required, "removedEnumValues": enums},
        sys.stdout,
        indent=1,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: openapi_changes.py OLD.json NEW.json")
    main(sys.argv[1], sys.argv[2])
