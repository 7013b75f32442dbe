//! Times validation of a generated 1,000-tool document (run with `--release`).
use serde_json::json;
use std::time::Instant;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let tools: Vec<_> = (0..n)
        .map(|i| {
            json!({
                "name": format!("tool_{i}"),
                "title": format!("Tool {i}"),
                "description": "Does something useful with the given arguments.",
                "inputSchema": {"type": "object", "properties": {
                    "id": {"type": "string", "minLength": 1},
                    "count": {"type": "integer", "minimum": 0},
                    "mode": {"type": "string", "enum": ["a", "b", "c"]},
                    "tags": {"type": "array", "items": {"type": "string"}}
                }, "required": ["id"], "additionalProperties": false},
                "outputSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
                "annotations": {"readOnlyHint": i % 2 == 0},
                "tags": ["t"],
                "security": [{"oauth": ["read"]}]
            })
        })
        .collect();
    let doc = json!({
        "mcpdesc": "0.8.0", "info": {"name": "big", "version": "1"},
        "protocolVersions": ["2025-11-25", "2026-07-28"],
        "transports": [{"type": "streamable-http", "url": "https://x.example/mcp"}],
        "securitySchemes": {"oauth": {"type": "oauth2", "flows": {"clientCredentials": {
            "tokenUrl": "https://x.example/token", "scopes": {"read": "Read"}}}}},
        "tags": [{"name": "t"}],
        "tools": tools
    });
    let v = mcpdesc_validate::Validator::new(); // compiles the schema once
    for round in 0..3 {
        let t = Instant::now();
        let s = v.structural(&doc);
        let ts = t.elapsed();
        let t = Instant::now();
        let m = v.semantic(&doc);
        let tm = t.elapsed();
        let t = Instant::now();
        let all = v.validate_value(&doc);
        let ta = t.elapsed();
        println!(
            "round {round}: {n} tools: structural {ts:?} ({} diags), semantic {tm:?} ({} diags), full {ta:?} ({} diags)",
            s.len(),
            m.len(),
            all.len()
        );
    }
}
