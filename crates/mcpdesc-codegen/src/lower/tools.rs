//! Selection: the tools of the view, their unique stems, and their input and output
//! roots.

use super::compose::sort_untagged;
use super::cycles::break_alias_cycles;
use super::naming::assign_names;
use super::{Ctx, Lowered, Lowerer, str_field, warn};
use crate::ir::*;
use crate::names::{self, Allocator};
use mcpdesc_core::{Diagnostic, Feature, ProtocolRevision, RevisionSet, refs};
use serde_json::Value;
use std::collections::HashMap;

/// Lowers the tools of `doc` (a description as JSON) in the effective protocol view of
/// `version` (default: the newest revision in root `protocolVersions`).
pub fn lower(doc: &Value, version: Option<&str>) -> Lowered {
    let mut diags = Vec::new();
    let root_set = RevisionSet::from_json(doc.get("protocolVersions").unwrap_or(&Value::Null));
    let v = match version {
        Some(s) => match ProtocolRevision::parse(s) {
            Some(v) if root_set.contains(v) => v,
            Some(_) => {
                diags.push(Diagnostic::error("codegen-protocol-version-not-in-document", format!("protocol version `{s}` is not in the document's root `protocolVersions` ({root_set})")).at("/protocolVersions"));
                return Lowered {
                    ir: None,
                    diagnostics: diags,
                };
            }
            None => {
                diags.push(Diagnostic::error(
                    "codegen-unknown-protocol-version",
                    format!("unknown MCP protocol revision `{s}`"),
                ));
                return Lowered {
                    ir: None,
                    diagnostics: diags,
                };
            }
        },
        None => match root_set.latest() {
            Some(v) => v,
            None => {
                diags.push(Diagnostic::error("codegen-no-protocol-versions", "the document declares no known protocol revision in root `protocolVersions`").at("/protocolVersions"));
                return Lowered {
                    ir: None,
                    diagnostics: diags,
                };
            }
        },
    };
    let info = doc.get("info").unwrap_or(&Value::Null);
    let server = Server {
        name: str_field(info, "name").unwrap_or_default(),
        version: str_field(info, "version").unwrap_or_default(),
        title: str_field(info, "title"),
        description: str_field(info, "description"),
    };
    let mut lw = Lowerer {
        doc,
        types: Vec::new(),
        by_origin: HashMap::new(),
        by_identity: HashMap::new(),
        diags,
    };
    let empty = Vec::new();
    let tools_json = doc.get("tools").and_then(Value::as_array).unwrap_or(&empty);

    // Select the tools of this view, and give each a unique stem (`GetData`, `GetData2`).
    struct Sel<'a> {
        idx: usize,
        tool: &'a Value,
        stem: String,
    }
    let mut stems = Allocator::default();
    let mut seen_wire: Vec<&str> = Vec::new();
    let mut sel: Vec<Sel<'_>> = Vec::new();
    for (idx, tool) in tools_json.iter().enumerate() {
        let scope = RevisionSet::effective(tool.get("protocolVersions"), root_set);
        if !scope.contains(v) {
            continue;
        }
        let at = format!("/tools/{idx}");
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            lw.diags.push(
                Diagnostic::error("codegen-tool-without-name", "tool has no `name`; skipped")
                    .at(at),
            );
            continue;
        };
        if seen_wire.contains(&name) {
            lw.diags.push(
                Diagnostic::error(
                    "codegen-duplicate-tool",
                    format!("tool {name:?} is declared twice for protocol version {v}; skipped"),
                )
                .at(at),
            );
            continue;
        }
        seen_wire.push(name);
        let pascal = names::pascal(name, "Tool");
        let (key, renamed) = stems.claim(&names::snake(&pascal, "tool"), |s| s.to_string());
        // Stem from the unique snake key so every language derives the same words.
        let stem = names::pascal(&key, "Tool");
        if renamed {
            lw.diags.push(warn("codegen-name-collision", format!("tool {name:?} maps to the same identifier as an earlier tool; its generated names use `{stem}`"), &at));
        }
        sel.push(Sel { idx, tool, stem });
    }

    // Tool types first, so `<Tool>Input`/`<Tool>Output` win name allocation.
    let mut ids = Vec::new();
    for s in &sel {
        let at = format!("/tools/{}", s.idx);
        let inp = lw.new_type(
            format!("{}Input", s.stem),
            format!("{at}/inputSchema"),
            None,
        );
        let out = lw.new_type(
            format!("{}Output", s.stem),
            format!("{at}/outputSchema"),
            None,
        );
        ids.push((inp, out));
    }
    let mut tools = Vec::new();
    for (s, (inp, out)) in sel.iter().zip(ids) {
        let at = format!("/tools/{}", s.idx);
        let name = s
            .tool
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        // inputSchema (maybe a $componentRef).
        let input_schema = match s.tool.get("inputSchema") {
            Some(raw) => match refs::resolve(doc, raw, "schemas") {
                Ok((schema, comp)) => {
                    let base = comp.unwrap_or_else(|| format!("{at}/inputSchema"));
                    lw.types[inp].origin = base.clone();
                    lw.by_origin.insert(base.clone(), inp);
                    let ctx = Ctx {
                        root: schema,
                        base: base.clone(),
                    };
                    lw.define(inp, &ctx, schema, &base, 0);
                    SchemaAt::Pointer(base)
                }
                Err(e) => {
                    lw.diags.push(
                        Diagnostic::error(e.code(), e.to_string()).at(format!("{at}/inputSchema")),
                    );
                    SchemaAt::Any
                }
            },
            None => {
                lw.diags.push(
                    Diagnostic::error(
                        "codegen-missing-input-schema",
                        "tool has no `inputSchema`; its input is typed as any JSON object",
                    )
                    .at(&at),
                );
                SchemaAt::Any
            }
        };
        // Tool inputs are JSON objects on the wire: anything else becomes an open map.
        let object_like = match &lw.types[inp].kind {
            Kind::Object(_) => true,
            Kind::Alias { ty: Ty::Map { .. } } => true,
            Kind::Union(u) => u.tag.is_some(),
            _ => false,
        };
        if !object_like {
            if !matches!(lw.types[inp].kind, Kind::Alias { ty: Ty::Any }) {
                lw.diags.push(warn("codegen-input-not-object", "inputSchema does not describe a plain object; the input is typed as any JSON object", &format!("{at}/inputSchema")));
            }
            lw.types[inp].kind = Kind::Alias {
                ty: Ty::Map {
                    values: Box::new(Ty::Any),
                },
            };
        }
        lw.types[inp].doc = Some(format!("Input of the `{name}` tool."));
        // outputSchema, only where the revision defines it.
        let mut output_schema = None;
        match s.tool.get("outputSchema") {
            Some(raw) if v.has(Feature::OutputSchema) => match refs::resolve(doc, raw, "schemas") {
                Ok((schema, comp)) => {
                    let base = comp.unwrap_or_else(|| format!("{at}/outputSchema"));
                    lw.types[out].origin = base.clone();
                    lw.by_origin.insert(base.clone(), out);
                    let ctx = Ctx { root: schema, base: base.clone() };
                    lw.define(out, &ctx, schema, &base, 0);
                    output_schema = Some(SchemaAt::Pointer(base));
                }
                Err(e) => {
                    lw.diags.push(Diagnostic::error(e.code(), e.to_string()).at(format!("{at}/outputSchema")));
                    output_schema = Some(SchemaAt::Any);
                }
            },
            Some(_) => lw.diags.push(Diagnostic::info("codegen-output-schema-ignored", format!("`outputSchema` is not defined in protocol version {v}; the tool returns content blocks")).at(format!("{at}/outputSchema"))),
            None => {}
        }
        if output_schema.is_none() {
            lw.types[out].kind = Kind::ContentBlocks;
            lw.types[out].origin = at.clone();
        }
        lw.types[out].doc = Some(if output_schema.is_some() {
            format!("Structured output of the `{name}` tool.")
        } else {
            format!("Content blocks returned by the `{name}` tool.")
        });
        tools.push(Tool {
            wire_name: name,
            names: Names::default(),
            title: str_field(s.tool, "title"),
            description: str_field(s.tool, "description"),
            deprecated: s
                .tool
                .get("deprecated")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            origin: at,
            input: inp,
            output: out,
            structured_output: output_schema.is_some(),
            input_schema,
            output_schema,
        });
    }
    let _ = lw.doc;
    break_alias_cycles(&mut lw);
    let mut ir = Ir {
        protocol_version: v.as_str().to_string(),
        server,
        tools,
        types: lw
            .types
            .into_iter()
            .map(|p| NamedType {
                names: Names {
                    rust: p.base.clone(),
                    ts: p.base,
                },
                doc: p.doc,
                origin: p.origin,
                kind: p.kind,
            })
            .collect(),
    };
    let mut diags = lw.diags;
    sort_untagged(&mut ir);
    assign_names(&mut ir, &mut diags);
    Lowered {
        ir: Some(ir),
        diagnostics: diags,
    }
}
