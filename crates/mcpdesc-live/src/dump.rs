//! Reading saved `tools/list` dumps in every shape people keep them in.
//!
//! Accepted shapes (one file each):
//! - a bare `tools/list` result `{"tools": [...], "nextCursor": ...}` — this is also what
//!   the MCP Inspector CLI prints (`mcp-inspector --cli … --method tools/list` writes
//!   `JSON.stringify(result, null, 2)` of the SDK's `listTools()` result);
//! - a JSON-RPC response whose `result` is such a result;
//! - a JSON array of pages (bare results or JSON-RPC responses), or of Tool objects;
//! - a session transcript: JSON Lines (or a JSON array) of JSON-RPC messages, with the
//!   `initialize` request/response (or the 2026-07-28 `server/discover` exchange),
//!   notifications, any number of `tools/list` pages and unrelated traffic;
//! - only the server's side of a session (a stdio server's standard output saved to a
//!   file): no requests, so responses are recognized by their shape. An initialize
//!   result has `protocolVersion` and `capabilities` (its `protocolVersion` is the
//!   negotiated revision, its `serverInfo` the server); a `server/discover` result has
//!   `supportedVersions` and `capabilities` (the session's revision is the one
//!   stateless-lifecycle revision it lists, its `_meta` carries the server); pages
//!   follow in file order.
//!
//! Parsing produces [`ParsedDump`]: the listings (each a complete tool list assembled
//! from its pages in cursor order), the negotiated revision when the dump says, and the
//! server identity. Positions (line/column) are kept for every tool for diagnostics.

use mcpdesc_core::{Diagnostic, Feature, Format, Limits, Position, ProtocolRevision, pointer};
use serde_json::Value;

// The 2026-07-28 `_meta` envelope keys are MCP vocabulary: one home in core.
pub use mcpdesc_core::meta::{
    CLIENT_CAPABILITIES as META_CLIENT_CAPABILITIES, CLIENT_INFO as META_CLIENT_INFO,
    PROTOCOL_VERSION as META_PROTOCOL_VERSION, SERVER_INFO as META_SERVER_INFO,
};

/// Where a value sits: which decoded unit (file or transcript line) and its pointer.
#[derive(Debug, Clone)]
pub struct Origin {
    /// RFC 6901 pointer inside the unit (the whole file, or one transcript line).
    pub pointer: String,
    /// Position in the file, when known.
    pub position: Option<Position>,
}

impl Origin {
    /// Attaches pointer and position to a diagnostic.
    pub fn apply(&self, d: Diagnostic) -> Diagnostic {
        let d = d.at(self.pointer.clone());
        match self.position {
            Some(p) => d.with_position(p.line, p.column),
            None => d,
        }
    }
    /// Human label: `line 7` or the pointer.
    pub fn label(&self) -> String {
        match self.position {
            Some(p) => format!("line {}", p.line),
            None if self.pointer.is_empty() => "the document root".to_string(),
            None => format!("`{}`", self.pointer),
        }
    }
}

/// One tool as found in a dump.
#[derive(Debug, Clone)]
pub struct RawTool {
    pub value: Value,
    pub origin: Origin,
    /// 1-based page number within its listing.
    pub page: usize,
    /// Where its page sits (for "listed on page 1 (line 4) and page 2 (line 9)").
    pub page_origin: Origin,
}

/// A complete tool list, assembled from its pages in cursor order.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    pub tools: Vec<RawTool>,
}

/// The shape a dump was recognised as (reported, and asserted by tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DumpShape {
    BareResult,
    JsonRpcResponse,
    ArrayOfPages,
    ArrayOfTools,
    Transcript,
}

/// What one dump says.
#[derive(Debug, Clone)]
pub struct ParsedDump {
    pub shape: DumpShape,
    pub listings: Vec<Listing>,
    /// The negotiated revision string and where it was found.
    pub negotiated: Option<(String, Origin)>,
    /// `serverInfo` (initialize result, or the 2026-07-28 `_meta` stamp).
    pub server_info: Option<(Value, Origin)>,
    /// Non-fatal findings (incomplete pagination).
    pub warnings: Vec<Diagnostic>,
}

/// A decoded unit with the line offset to add to its positions.
struct Unit {
    decoded: mcpdesc_core::Decoded,
    line_offset: u32,
}

impl Unit {
    fn origin(&self, ptr: &str) -> Origin {
        let position = self.decoded.locate(ptr).map(|p| Position {
            line: p.line + self.line_offset,
            column: p.column,
        });
        Origin {
            pointer: ptr.to_string(),
            position,
        }
    }
}

/// One page before ordering.
struct Page {
    /// `None`: unknown request (bare pages); `Some(None)`: first-page request.
    request_cursor: Option<Option<String>>,
    next_cursor: Option<String>,
    tools: Vec<(Value, Origin)>,
    origin: Origin,
}

/// Parses one dump. Errors are diagnostics without a file name.
pub fn parse_dump(bytes: &[u8], limits: &Limits) -> Result<ParsedDump, Vec<Diagnostic>> {
    let whole = mcpdesc_core::decode_bytes(bytes, Format::Json, limits);
    let units: Vec<Unit> = match whole {
        Ok(decoded) => vec![Unit {
            decoded,
            line_offset: 0,
        }],
        Err(first_err) => {
            // Not one JSON value: try JSON Lines (a transcript).
            let text = match std::str::from_utf8(bytes) {
                Ok(t) => t.strip_prefix('\u{feff}').unwrap_or(t),
                Err(_) => return Err(vec![first_err]),
            };
            let mut units = Vec::new();
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let line_no = u32::try_from(i).unwrap_or(u32::MAX);
                match mcpdesc_core::decode(line, Format::Json, limits) {
                    Ok(decoded) => units.push(Unit {
                        decoded,
                        line_offset: line_no,
                    }),
                    Err(mut e) => {
                        if units.is_empty() {
                            // The first line is not JSON either: report the whole-file error.
                            return Err(vec![first_err]);
                        }
                        e.line = Some(e.line.unwrap_or(1) + line_no);
                        e.message = format!("JSON Lines transcript: {}", e.message);
                        return Err(vec![e]);
                    }
                }
            }
            if units.len() < 2 {
                return Err(vec![first_err]);
            }
            units
        }
    };

    if units.len() == 1 {
        let root = &units[0].decoded.value;
        if let Some(shape) = single_shape(root) {
            return parse_single(&units[0], shape);
        }
    }
    // Transcript: every unit is a JSON-RPC message (or a batch array of them).
    let mut msgs = Vec::new();
    for (ui, u) in units.iter().enumerate() {
        match &u.decoded.value {
            Value::Array(items) => {
                for (i, _) in items.iter().enumerate() {
                    msgs.push((ui, format!("/{i}")));
                }
            }
            Value::Object(_) => msgs.push((ui, String::new())),
            _ => {
                return Err(vec![u.origin("").apply(Diagnostic::error(
                    "dump-unrecognized",
                    "not a tools/list dump: expected a tools/list result, a JSON-RPC response, an array of pages or tools, or a JSON-RPC transcript",
                ))]);
            }
        }
    }
    parse_transcript(&units, &msgs)
}

fn is_page(v: &Value) -> bool {
    v.get("tools").is_some_and(Value::is_array)
}

fn is_rpc_response(v: &Value) -> bool {
    v.is_object()
        && v.get("method").is_none()
        && (v.get("result").is_some() || v.get("error").is_some())
}

fn is_rpc_message(v: &Value) -> bool {
    v.is_object() && (v.get("jsonrpc").is_some() || v.get("method").is_some() || is_rpc_response(v))
}

fn looks_like_tool(v: &Value) -> bool {
    v.get("name").is_some_and(Value::is_string) && v.get("tools").is_none() && !is_rpc_message(v)
}

fn single_shape(root: &Value) -> Option<DumpShape> {
    match root {
        Value::Object(_) if is_page(root) && !is_rpc_message(root) => Some(DumpShape::BareResult),
        Value::Object(_) if is_rpc_response(root) && root.get("result").is_some_and(is_page) => {
            Some(DumpShape::JsonRpcResponse)
        }
        Value::Object(_) if is_rpc_response(root) => Some(DumpShape::JsonRpcResponse),
        Value::Array(items) if items.is_empty() => Some(DumpShape::ArrayOfTools),
        Value::Array(items)
            if items.iter().all(|v| {
                (is_page(v) && !is_rpc_message(v))
                    || (is_rpc_response(v) && v.get("result").is_some_and(is_page))
            }) =>
        {
            Some(DumpShape::ArrayOfPages)
        }
        Value::Array(items) if items.iter().all(looks_like_tool) => Some(DumpShape::ArrayOfTools),
        _ => None,
    }
}

fn page_at(unit: &Unit, ptr: &str, value: &Value, request_cursor: Option<Option<String>>) -> Page {
    let tools = value
        .get("tools")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .enumerate()
                .map(|(i, t)| {
                    (
                        t.clone(),
                        unit.origin(&pointer::push(&pointer::push(ptr, "tools"), i.to_string())),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    Page {
        request_cursor,
        next_cursor: value
            .get("nextCursor")
            .and_then(Value::as_str)
            .map(str::to_string),
        tools,
        origin: unit.origin(ptr),
    }
}

fn rpc_error(unit: &Unit, ptr: &str, err: &Value) -> Diagnostic {
    let code = err.get("code").map(Value::to_string).unwrap_or_default();
    let msg = err.get("message").and_then(Value::as_str).unwrap_or("");
    unit.origin(ptr).apply(Diagnostic::error(
        "dump-jsonrpc-error",
        format!("the server answered with a JSON-RPC error {code}: {msg}"),
    ))
}

fn parse_single(unit: &Unit, shape: DumpShape) -> Result<ParsedDump, Vec<Diagnostic>> {
    let root = &unit.decoded.value;
    let mut pages = Vec::new();
    match shape {
        DumpShape::BareResult => pages.push(page_at(unit, "", root, None)),
        DumpShape::JsonRpcResponse => {
            if let Some(err) = root.get("error") {
                return Err(vec![rpc_error(unit, "/error", err)]);
            }
            pages.push(page_at(
                unit,
                "/result",
                root.get("result").unwrap_or(&Value::Null),
                None,
            ));
        }
        DumpShape::ArrayOfPages => {
            for (i, item) in root.as_array().into_iter().flatten().enumerate() {
                if is_rpc_response(item) {
                    let ptr = format!("/{i}/result");
                    pages.push(page_at(
                        unit,
                        &ptr,
                        item.get("result").unwrap_or(&Value::Null),
                        None,
                    ));
                } else {
                    pages.push(page_at(unit, &format!("/{i}"), item, None));
                }
            }
        }
        DumpShape::ArrayOfTools => {
            let tools = root
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
                .map(|(i, t)| (t.clone(), unit.origin(&format!("/{i}"))))
                .collect();
            pages.push(Page {
                request_cursor: None,
                next_cursor: None,
                tools,
                origin: unit.origin(""),
            });
        }
        DumpShape::Transcript => {}
    }
    let mut diags = Vec::new();
    let listings = order_pages(pages, &mut diags);
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags);
    }
    Ok(ParsedDump {
        shape,
        listings,
        negotiated: None,
        server_info: None,
        warnings: diags,
    })
}

/// Orders pages into listings by following cursors.
fn order_pages(pages: Vec<Page>, diags: &mut Vec<Diagnostic>) -> Vec<Listing> {
    if pages.is_empty() {
        return Vec::new();
    }
    let mut chains: Vec<Vec<usize>> = Vec::new();
    if pages.iter().any(|p| p.request_cursor.is_none()) {
        // Request cursors unknown (saved pages): the given order is the cursor order.
        chains.push((0..pages.len()).collect());
    } else {
        let mut used = vec![false; pages.len()];
        for start in 0..pages.len() {
            if used[start] || !matches!(pages[start].request_cursor, Some(None)) {
                continue;
            }
            used[start] = true;
            let mut chain = vec![start];
            let mut cur = start;
            while let Some(next) = pages[cur].next_cursor.clone() {
                let follower = (0..pages.len()).find(|&j| {
                    !used[j]
                        && pages[j]
                            .request_cursor
                            .as_ref()
                            .is_some_and(|c| c.as_deref() == Some(&next))
                });
                match follower {
                    Some(j) => {
                        used[j] = true;
                        chain.push(j);
                        cur = j;
                    }
                    None => break,
                }
            }
            chains.push(chain);
        }
        for (j, p) in pages.iter().enumerate() {
            if !used[j] {
                let cursor = p.request_cursor.clone().flatten().unwrap_or_default();
                diags.push(p.origin.apply(Diagnostic::error(
                    "dump-cursor-chain",
                    format!("this tools/list page was requested with cursor `{cursor}`, which no earlier page returned as nextCursor"),
                )));
            }
        }
    }
    let mut listings = Vec::new();
    for chain in chains {
        let mut listing = Listing::default();
        for (n, &pi) in chain.iter().enumerate() {
            let page = &pages[pi];
            for (value, origin) in &page.tools {
                listing.tools.push(RawTool {
                    value: value.clone(),
                    origin: origin.clone(),
                    page: n + 1,
                    page_origin: page.origin.clone(),
                });
            }
        }
        if let Some(&last) = chain.last()
            && let Some(c) = &pages[last].next_cursor
        {
            diags.push(pages[last].origin.apply(Diagnostic::warning(
                "dump-incomplete-pagination",
                format!("the last saved tools/list page has nextCursor `{c}` but no page for it follows: the tool list may be incomplete"),
            )));
        }
        listings.push(listing);
    }
    listings
}

/// An `initialize` result by its shape (InitializeResult requires both members in every
/// revision): how a response is recognized when no request correlates it.
fn is_initialize_result(result: &Value) -> bool {
    result.get("protocolVersion").is_some_and(Value::is_string)
        && result.get("capabilities").is_some_and(Value::is_object)
}

/// A 2026-07-28 `server/discover` result by its shape.
fn is_discover_result(result: &Value) -> bool {
    result.get("supportedVersions").is_some_and(Value::is_array)
        && result.get("capabilities").is_some_and(Value::is_object)
}

fn id_key(v: Option<&Value>) -> Option<String> {
    match v {
        Some(Value::Null) | None => None,
        Some(v) => Some(v.to_string()),
    }
}

/// The revision of a stateless session from its `server/discover` result: the one
/// revision with [`Feature::StatelessLifecycle`] among `supportedVersions` (only such a
/// revision is used without `initialize`). None when there is not exactly one.
fn stateless_revision(unit: &Unit, rptr: &str, result: &Value) -> Option<(String, Origin)> {
    let listed = result.get("supportedVersions").and_then(Value::as_array)?;
    let mut stateless = listed.iter().enumerate().filter(|(_, v)| {
        v.as_str()
            .and_then(ProtocolRevision::parse)
            .is_some_and(|r| r.has(Feature::StatelessLifecycle))
    });
    let (i, v) = stateless.next()?;
    if stateless.next().is_some() {
        return None;
    }
    let at = pointer::push(&pointer::push(rptr, "supportedVersions"), i.to_string());
    Some((v.as_str()?.to_string(), unit.origin(&at)))
}

fn parse_transcript(
    units: &[Unit],
    msgs: &[(usize, String)],
) -> Result<ParsedDump, Vec<Diagnostic>> {
    let get = |&(ui, ref ptr): &(usize, String)| -> Option<&Value> {
        units[ui].decoded.value.pointer(ptr)
    };
    let mut diags = Vec::new();
    // Open requests: id → (method, params, message index). Positional: a response
    // answers the most recent unanswered request with its id.
    let mut open: Vec<(String, String, Value, usize)> = Vec::new();
    let mut pages = Vec::new();
    let mut negotiated: Option<(String, Origin)> = None;
    let mut server_info: Option<(Value, Origin)> = None;
    let mut modern: Option<(String, Origin)> = None;
    let mut discovered: Option<(String, Origin)> = None;
    let mut any_rpc = false;
    for (mi, m) in msgs.iter().enumerate() {
        let Some(v) = get(m) else { continue };
        let unit = &units[m.0];
        if !is_rpc_message(v) {
            continue; // unrelated line (a log line saved as JSON): ignore
        }
        any_rpc = true;
        if let Some(method) = v.get("method").and_then(Value::as_str) {
            if let Some(id) = id_key(v.get("id")) {
                let params = v.get("params").cloned().unwrap_or(Value::Null);
                if method == "tools/list"
                    && let Some(pv) = params
                        .pointer(&format!(
                            "/_meta/{}",
                            pointer::escape(META_PROTOCOL_VERSION)
                        ))
                        .and_then(Value::as_str)
                {
                    let o = unit.origin(&pointer::push(
                        &pointer::push(&pointer::push(&m.1, "params"), "_meta"),
                        META_PROTOCOL_VERSION,
                    ));
                    match &modern {
                        Some((prev, _)) if prev != pv => diags.push(o.apply(Diagnostic::error(
                            "dump-multiple-sessions",
                            format!("tools/list requests in this transcript use protocol versions `{prev}` and `{pv}`; save one session per file"),
                        ))),
                        Some(_) => {}
                        None => modern = Some((pv.to_string(), o)),
                    }
                }
                open.push((id, method.to_string(), params, mi));
            }
            continue;
        }
        // A response.
        let Some(id) = id_key(v.get("id")) else {
            continue;
        };
        let req = open
            .iter()
            .rposition(|(rid, ..)| *rid == id)
            .map(|i| open.remove(i));
        let method = req.as_ref().map(|r| r.1.as_str());
        if let Some(err) = v.get("error") {
            if method == Some("tools/list") || method == Some("initialize") {
                diags.push(rpc_error(unit, &pointer::push(&m.1, "error"), err));
            }
            continue;
        }
        let Some(result) = v.get("result") else {
            continue;
        };
        let rptr = pointer::push(&m.1, "result");
        // Without a request to correlate (only the server's side was saved), a result is
        // recognized by its shape.
        let method = method.or_else(|| {
            if is_initialize_result(result) {
                Some("initialize")
            } else if is_discover_result(result) {
                Some("server/discover")
            } else {
                None
            }
        });
        match method {
            Some("initialize") => {
                if let Some(pv) = result.get("protocolVersion").and_then(Value::as_str) {
                    let o = unit.origin(&pointer::push(&rptr, "protocolVersion"));
                    if let Some((prev, prev_o)) = &negotiated {
                        diags.push(o.apply(Diagnostic::error(
                            "dump-multiple-sessions",
                            format!(
                                "this transcript holds a second initialize result (`{pv}`; the first, `{prev}`, is at {}); save one session per file",
                                prev_o.label()
                            ),
                        )));
                    } else {
                        negotiated = Some((pv.to_string(), o));
                    }
                }
                if let Some(si) = result.get("serverInfo") {
                    server_info =
                        Some((si.clone(), unit.origin(&pointer::push(&rptr, "serverInfo"))));
                }
            }
            Some("tools/list") | None if is_page(result) => {
                let request_cursor = req.as_ref().map(|(_, _, params, _)| {
                    params
                        .get("cursor")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                });
                pages.push(page_at(unit, &rptr, result, request_cursor));
                if server_info.is_none()
                    && let Some(si) = result.get("_meta").and_then(|mt| mt.get(META_SERVER_INFO))
                {
                    let p = pointer::push(&pointer::push(&rptr, "_meta"), META_SERVER_INFO);
                    server_info = Some((si.clone(), unit.origin(&p)));
                }
            }
            Some("server/discover") => {
                if let Some(si) = result.get("_meta").and_then(|mt| mt.get(META_SERVER_INFO)) {
                    let p = pointer::push(&pointer::push(&rptr, "_meta"), META_SERVER_INFO);
                    server_info = Some((si.clone(), unit.origin(&p)));
                }
                if discovered.is_none() {
                    discovered = stateless_revision(unit, &rptr, result);
                }
            }
            _ => {}
        }
    }
    if !any_rpc {
        return Err(vec![units[0].origin("").apply(Diagnostic::error(
            "dump-unrecognized",
            "not a tools/list dump: expected a tools/list result, a JSON-RPC response, an array of pages or tools, or a JSON-RPC transcript",
        ))]);
    }
    if pages.is_empty() && !diags.iter().any(Diagnostic::is_error) {
        diags.push(units[0].origin("").apply(Diagnostic::error(
            "dump-no-tools-list",
            "the transcript contains no tools/list result",
        )));
    }
    // A 2026-07-28 (stateless) session has no initialize: its revision is the one every
    // tools/list request carried in its `_meta` envelope.
    // Only the server's side of such a session: its discover result says.
    if negotiated.is_none() {
        negotiated = modern.or(discovered);
    }
    let listings = order_pages(pages, &mut diags);
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags);
    }
    Ok(ParsedDump {
        shape: DumpShape::Transcript,
        listings,
        negotiated,
        server_info,
        warnings: diags,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(l: &Listing) -> Vec<&str> {
        l.tools
            .iter()
            .map(|t| t.value["name"].as_str().unwrap_or(""))
            .collect()
    }

    #[test]
    fn pages_follow_cursors_not_file_order() {
        let t = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"y"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"c"}]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}],"nextCursor":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"b"}],"nextCursor":"y"}}"#,
        ]
        .join("\n");
        let d = parse_dump(t.as_bytes(), &Limits::default()).expect("parse");
        assert_eq!(d.shape, DumpShape::Transcript);
        assert_eq!(d.listings.len(), 1);
        assert_eq!(names(&d.listings[0]), ["a", "b", "c"]);
        assert_eq!(
            d.listings[0].tools[2].origin.position.map(|p| p.line),
            Some(3)
        );
    }

    #[test]
    fn server_side_only_responses_are_known_by_their_shape() {
        let init = [
            r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a"}]}}"#,
        ]
        .join("\n");
        let d = parse_dump(init.as_bytes(), &Limits::default()).expect("parse");
        assert_eq!(
            d.negotiated.as_ref().map(|n| n.0.as_str()),
            Some("2025-03-26")
        );
        assert_eq!(
            d.server_info.as_ref().map(|s| &s.0["name"]),
            Some(&Value::from("s"))
        );
        assert_eq!(names(&d.listings[0]), ["a"]);
        // A discover result: the one stateless revision it lists is the session's.
        let discover = |versions: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"result":{{"supportedVersions":{versions},"capabilities":{{}},"_meta":{{"{META_SERVER_INFO}":{{"name":"s","version":"1"}}}}}}}}
{{"jsonrpc":"2.0","id":2,"result":{{"tools":[]}}}}"#
            )
        };
        let d = parse_dump(
            discover(r#"["2025-11-25","2026-07-28"]"#).as_bytes(),
            &Limits::default(),
        )
        .expect("parse");
        assert_eq!(
            d.negotiated.as_ref().map(|n| n.0.as_str()),
            Some("2026-07-28")
        );
        assert_eq!(
            d.negotiated.as_ref().map(|n| n.1.pointer.as_str()),
            Some("/result/supportedVersions/1")
        );
        assert!(d.server_info.is_some());
        // No stateless revision listed: the dump does not say.
        let d = parse_dump(discover(r#"["2025-11-25"]"#).as_bytes(), &Limits::default())
            .expect("parse");
        assert!(d.negotiated.is_none());
        // A result that is neither stays unrelated traffic.
        let other = [
            r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}"#,
        ]
        .join("\n");
        let d = parse_dump(other.as_bytes(), &Limits::default()).expect("parse");
        assert!(d.negotiated.is_none());
    }

    #[test]
    fn orphan_cursor_is_an_error_and_truncation_a_warning() {
        let t = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"nope"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#,
        ]
        .join("\n");
        let e = parse_dump(t.as_bytes(), &Limits::default()).expect_err("orphan");
        assert_eq!(e[0].code, "dump-cursor-chain");
        let d =
            parse_dump(br#"{"tools":[],"nextCursor":"more"}"#, &Limits::default()).expect("parse");
        assert_eq!(d.warnings[0].code, "dump-incomplete-pagination");
    }

    #[test]
    fn shapes() {
        let l = Limits::default();
        assert_eq!(
            parse_dump(br#"{"tools":[]}"#, &l).map(|d| d.shape).ok(),
            Some(DumpShape::BareResult)
        );
        assert_eq!(
            parse_dump(br#"[{"name":"a","inputSchema":{}}]"#, &l)
                .map(|d| d.shape)
                .ok(),
            Some(DumpShape::ArrayOfTools)
        );
        assert_eq!(
            parse_dump(br#"[{"tools":[]}]"#, &l).map(|d| d.shape).ok(),
            Some(DumpShape::ArrayOfPages)
        );
        assert_eq!(
            parse_dump(br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#, &l)
                .map(|d| d.shape)
                .ok(),
            Some(DumpShape::JsonRpcResponse)
        );
        assert!(parse_dump(b"42", &l).is_err());
        assert!(parse_dump(b"{\"tools\": [", &l).is_err());
    }
}
