//! Selection: the tools of the view, their unique stems, and their input and output
//! roots.

use super::compose::sort_untagged;
use super::cycles::break_alias_cycles;
use super::naming::assign_names;
use super::{Ctx, Lowered, Lowerer, Views, str_field, warn};
use crate::ir::*;
use crate::names::{self, Allocator};
use mcpdesc_core::provenance::ToolProvenance;
use mcpdesc_core::revision::{ObjectKind, field_available, field_feature};
use mcpdesc_core::{Diagnostic, ProtocolRevision, refs};
use serde_json::Value;

/// A tool of the view with its source pointer and its unique stem (`GetData`,
/// `GetData2`).
struct Selected<'v> {
    at: String,
    tool: &'v Value,
    name: String,
    stem: String,
}

/// Lowers the tools of the target view of `views` into the [`Ir`].
pub fn lower(views: &Views<'_>) -> Lowered {
    let view = views.view();
    let rev = views.target_revision();
    let mut lw = Lowerer::new();
    let selected = select(&mut lw, views);
    for s in &selected {
        for field in ["inputSchema", "outputSchema"] {
            if let Some(Ok((schema, _))) = s
                .tool
                .get(field)
                .map(|raw| refs::resolve(view, raw, "schemas"))
            {
                lw.definitions.add(schema);
            }
        }
    }

    // Tool types first, so `<Tool>Input`/`<Tool>Output` win name allocation.
    let ids: Vec<(TypeId, TypeId)> = selected
        .iter()
        .map(|s| {
            let input = lw.new_type(
                format!("{}Input", s.stem),
                format!("{}/inputSchema", s.at),
                None,
            );
            let output = lw.new_type(
                format!("{}Output", s.stem),
                format!("{}/outputSchema", s.at),
                None,
            );
            (input, output)
        })
        .collect();
    let mut tools = Vec::new();
    for (s, (inp, out)) in selected.iter().zip(ids) {
        let input_schema = match s.tool.get("inputSchema") {
            Some(raw) => lw.root(view, inp, raw, &format!("{}/inputSchema", s.at), None),
            None => {
                lw.diags.push(
                    Diagnostic::error(
                        "codegen-missing-input-schema",
                        "tool has no `inputSchema`; its input is typed as any JSON object",
                    )
                    .at(&s.at),
                );
                SchemaAt::Any
            }
        };
        lw.object_input(inp, &s.at);
        lw.types[inp].doc = Some(format!("Input of the `{}` tool.", s.name));
        let mut resolved_output = None;
        let output_schema = match s.tool.get("outputSchema") {
            Some(raw) if field_available(ObjectKind::Tool, "outputSchema", rev) => {
                let hint = component_hint(s.tool);
                resolved_output = refs::resolve(view, raw, "schemas").ok().map(|(v, _)| v);
                let at = format!("{}/outputSchema", s.at);
                Some(lw.root(view, out, raw, &at, hint.as_deref()))
            }
            Some(_) => {
                let exists = field_feature(ObjectKind::Tool, "outputSchema")
                    .map(|f| format!(" (it exists {})", f.phrase()))
                    .unwrap_or_default();
                lw.diags.push(Diagnostic::info("codegen-output-schema-ignored", format!("`outputSchema` is not defined in protocol version {rev}{exists}; the tool returns content blocks")).at(format!("{}/outputSchema", s.at)));
                None
            }
            None => None,
        };
        if output_schema.is_none() {
            lw.types[out].kind = Kind::ContentBlocks;
            lw.types[out].origin = s.at.clone();
        }
        lw.types[out].doc = Some(if output_schema.is_some() {
            format!("Structured output of the `{}` tool.", s.name)
        } else {
            format!("Content blocks returned by the `{}` tool.", s.name)
        });
        let results = lw.results(views, &s.name, s.tool, resolved_output);
        let title =
            str_field(s.tool, "title").filter(|_| field_available(ObjectKind::Tool, "title", rev));
        let description = str_field(s.tool, "description");
        tools.push(Tool {
            doc: tool_doc(&s.name, title.as_deref(), description.as_deref()),
            wire_name: s.name.clone(),
            names: Names::default(),
            title,
            description,
            deprecated: s
                .tool
                .get("deprecated")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            origin: s.at.clone(),
            input: inp,
            output: out,
            structured_output: output_schema.is_some(),
            results,
            input_schema,
            output_schema,
        });
    }
    break_alias_cycles(&mut lw);
    let server = server(view);
    let mut ir = Ir {
        protocol_version: rev,
        protocol_versions: views.revisions().iter().collect(),
        summary: format!("Typed MCP client for {}", server.label()),
        doc: header_doc(&server, rev),
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
        ir,
        diagnostics: diags,
    }
}

/// The tools of the view, each with a unique stem. Tools without a name or with a name
/// taken earlier cannot occur in a validated view; the unchecked path reports them.
fn select<'v>(lw: &mut Lowerer<'_>, views: &'v Views<'_>) -> Vec<Selected<'v>> {
    let rev = views.target_revision();
    let mut stems = Allocator::default();
    let mut selected: Vec<Selected<'v>> = Vec::new();
    for (at, tool) in views.tools() {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            lw.diags.push(
                Diagnostic::error("codegen-tool-without-name", "tool has no `name`; skipped")
                    .at(at),
            );
            continue;
        };
        if selected.iter().any(|s| s.name == name) {
            lw.diags.push(
                Diagnostic::error(
                    "codegen-duplicate-tool",
                    format!("tool {name:?} is declared twice for protocol version {rev}; skipped"),
                )
                .at(at),
            );
            continue;
        }
        let pascal = names::pascal(name, "Tool");
        let (key, renamed) = stems.claim(&names::snake(&pascal, "tool"), |s| s.to_string());
        // Stem from the unique snake key so every language derives the same words.
        let stem = names::pascal(&key, "Tool");
        if renamed {
            lw.diags.push(warn("codegen-name-collision", format!("tool {name:?} maps to the same identifier as an earlier tool; its generated names use `{stem}`"), &at));
        }
        selected.push(Selected {
            at,
            tool,
            name: name.to_string(),
            stem,
        });
    }
    selected
}

impl<'a> Lowerer<'a> {
    /// Lowers a tool's `inputSchema` or `outputSchema` (`raw`, maybe a `$componentRef`
    /// into `view`; `at` is its source pointer) as the tool's type `id`. A root that is a
    /// component (see [`Lowerer::component_root`]) is that component's one type, and
    /// `id` an alias of it: `createPet` returns `Pet`, as `listPets` returns `Array<Pet>`.
    fn root(
        &mut self,
        view: &'a Value,
        id: TypeId,
        raw: &'a Value,
        at: &str,
        hint: Option<&str>,
    ) -> SchemaAt {
        match refs::resolve(view, raw, "schemas") {
            Ok((schema, comp)) => {
                let base = comp.clone().unwrap_or_else(|| at.to_string());
                self.types[id].origin = base.clone();
                let ctx = Ctx {
                    root: schema,
                    refs: mcpdesc_core::local_ref::Resolver::new(schema),
                    base: base.clone(),
                };
                if let Some(shared) = self.component_root(&ctx, comp.as_deref(), hint) {
                    self.types[id].kind = Kind::Alias {
                        ty: Ty::Named { id: shared },
                    };
                } else {
                    self.by_origin.insert(base.clone(), id);
                    self.define(id, &ctx, schema, &base, 0);
                }
                SchemaAt::Pointer(base)
            }
            Err(e) => {
                self.diags
                    .push(Diagnostic::error(e.code(), e.to_string()).at(at));
                SchemaAt::Any
            }
        }
    }

    /// Tool inputs are JSON objects on the wire: anything else becomes an open map.
    fn object_input(&mut self, id: TypeId, at: &str) {
        // Through the alias a component root is (bounded: alias cycles are broken later).
        let mut kind = &self.types[id].kind;
        for _ in 0..8 {
            match kind {
                Kind::Alias {
                    ty: Ty::Named { id },
                } => kind = &self.types[*id].kind,
                _ => break,
            }
        }
        let object_like = match kind {
            Kind::Object(_) => true,
            Kind::Alias { ty: Ty::Map { .. } } => true,
            Kind::Union(u) => u.tag.is_some(),
            _ => false,
        };
        if object_like {
            return;
        }
        if !matches!(self.types[id].kind, Kind::Alias { ty: Ty::Any }) {
            self.diags.push(warn(
                "codegen-input-not-object",
                "inputSchema does not describe a plain object; the input is typed as any JSON object",
                &format!("{at}/inputSchema"),
            ));
        }
        self.types[id].kind = Kind::Alias {
            ty: Ty::Map {
                values: Box::new(Ty::Any),
            },
        };
    }
}

/// The `$defs` name an importer recorded for the component a tool's output root is
/// (`x-mcpdesc-openapi.response.component`). A hint only: not when the output is wrapped
/// (`resultWrapper`), where the component is the wrapped property, not the root; a
/// malformed provenance is no hint.
fn component_hint(tool: &Value) -> Option<String> {
    let response = ToolProvenance::of_tool(tool, "")?.ok()?.response?;
    match response.result_wrapper {
        Some(_) => None,
        None => response.component,
    }
}

/// Server identity from the Info Object (unscoped: the same in every view).
fn server(view: &Value) -> Server {
    let info = view.get("info").unwrap_or(&Value::Null);
    Server {
        name: str_field(info, "name").unwrap_or_default(),
        version: str_field(info, "version").unwrap_or_default(),
        title: str_field(info, "title"),
        description: str_field(info, "description"),
    }
}

/// The generated client's header documentation (the same text in every language).
fn header_doc(server: &Server, rev: ProtocolRevision) -> String {
    let mut doc = format!("Typed MCP client for {}", server.label());
    if !server.version.is_empty() {
        doc.push_str(&format!(" (version {})", server.version));
    }
    doc.push('.');
    if let Some(d) = &server.description {
        doc.push_str("\n\n");
        doc.push_str(d);
    }
    doc.push_str(&format!(
        "\n\nGenerated by mcpdesc from an MCP Description (protocol revision {rev}). Do not edit."
    ));
    doc
}

/// A tool method's documentation: the tool's title and description, then the wire name.
fn tool_doc(name: &str, title: Option<&str>, description: Option<&str>) -> String {
    let mut parts: Vec<&str> = [title, description]
        .into_iter()
        .flatten()
        .filter(|s| !s.trim().is_empty())
        .collect();
    let call = format!("Calls the MCP tool `{name}`.");
    parts.push(&call);
    parts.join("\n\n")
}
