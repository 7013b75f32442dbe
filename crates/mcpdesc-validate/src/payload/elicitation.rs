//! Elicitation Declarations (§12): names, scope, mode fields and availability, URL
//! syntax, and the restricted form-schema vocabulary of each revision.

use super::content::is_uri;
use super::{at, is_local_name};
use crate::ctx::{Ctx, Primitive, scope_of};
use mcpdesc_core::{Feature, RevisionSet};
use serde_json::{Map, Value};

/// String formats elicitation form fields may use (§12.3).
const FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

/// Every Elicitation Declaration of a primitive.
pub(crate) fn check_elicitations<'a>(cx: &mut Ctx<'a>, p: &Primitive<'a>) {
    let Some(list) = p.value.get("elicitations").and_then(Value::as_array) else {
        return;
    };
    let list_ptr = at(&p.pointer, "elicitations");
    let mut names: Vec<&str> = Vec::new();
    for (i, e) in list.iter().enumerate() {
        let ep = at(&list_ptr, &i.to_string());
        let Some(o) = e.as_object() else { continue };
        if let Some(n) = o.get("name").and_then(Value::as_str) {
            if !is_local_name(n) {
                cx.error(
                    "elicitation-name-invalid",
                    at(&ep, "name"),
                    format!("`{n}` does not match ^[A-Za-z0-9._-]+$ (§12.2)"),
                );
            }
            if names.contains(&n) {
                cx.error(
                    "elicitation-name-duplicate",
                    at(&ep, "name"),
                    format!(
                        "another Elicitation Declaration of this primitive is named `{n}` (§12.2)"
                    ),
                );
            } else {
                names.push(n);
            }
        }
        if let Some(v) = o.get("protocolVersions") {
            let s = RevisionSet::from_json(v);
            if s.is_empty() || !s.is_subset(p.scope) {
                cx.error(
                    "elicitation-scope-outside-parent",
                    at(&ep, "protocolVersions"),
                    format!("the declaration's scope {s} must be a non-empty subset of the containing primitive's scope {} (§12.5)", p.scope),
                );
            }
        }
        let escope = scope_of(o, p.scope);
        let mode = o.get("mode").and_then(Value::as_str);
        match mode {
            Some("form") => {
                if !o.contains_key("requestedSchema") {
                    cx.error(
                        "elicitation-mode-fields",
                        &ep,
                        "form mode requires `requestedSchema` (§12.3)",
                    );
                }
                if o.contains_key("url") {
                    cx.error(
                        "elicitation-mode-fields",
                        at(&ep, "url"),
                        "form mode must not contain `url` (§12.3)",
                    );
                }
            }
            Some("url") if o.contains_key("requestedSchema") => {
                cx.error(
                    "elicitation-mode-fields",
                    at(&ep, "requestedSchema"),
                    "URL mode must not contain `requestedSchema` (§12.4)",
                );
            }
            _ => {}
        }
        if let Some(u) = o.get("url") {
            if !u.as_str().is_some_and(is_uri) {
                cx.error(
                    "elicitation-url-invalid",
                    at(&ep, "url"),
                    format!("`url` must be a syntactically valid URI, found {u} (§12.4)"),
                );
            }
        }
        let feature = match mode {
            Some("form") => Some((Feature::ElicitationForm, "form")),
            Some("url") => Some((Feature::ElicitationUrl, "URL")),
            _ => None,
        };
        if let Some((feature, label)) = feature {
            let missing = escope.without(feature);
            let legacy: RevisionSet = missing.iter().filter(|r| r.is_legacy()).collect();
            let hard = missing.difference(legacy);
            if !hard.is_empty() {
                cx.error("elicitation-mode-inapplicable", at(&ep, "mode"), format!("{label}-mode elicitation is not defined for MCP {hard}; split the declaration (§12.5)"));
            }
            if !legacy.is_empty() {
                cx.warn(
                    "elicitation-validation-incomplete",
                    &ep,
                    format!("legacy MCP {legacy} define no elicitation; only structural and selected checks were applied (§12.5)"),
                );
            }
        }
        if mode == Some("form") {
            if let Some(raw) = o.get("requestedSchema") {
                if let Ok((schema, comp)) = cx.resolve(raw, "schemas") {
                    let sp = comp.unwrap_or_else(|| at(&ep, "requestedSchema"));
                    check_form_schema(cx, schema, &sp, escope);
                }
            }
        }
    }
}

/// The restricted form vocabulary (§12.3). Legacy revisions get the shape checks
/// under the widest vocabulary (no revision-specific rule is invented for them).
fn check_form_schema(cx: &mut Ctx<'_>, schema: &Value, ptr: &str, escope: RevisionSet) {
    let modern: RevisionSet = escope.iter().filter(|r| !r.is_legacy()).collect();
    let strict = modern.without(Feature::ElicitationRichSchemas);
    let v = Vocab {
        rich: strict.is_empty(),
        revs: if strict.is_empty() { escope } else { strict },
    };
    let Some(o) = schema.as_object() else {
        cx.error(
            "elicitation-form-schema",
            ptr,
            "`requestedSchema` must be an object schema (§12.3)",
        );
        return;
    };
    let mut root_keys = vec!["type", "properties", "required"];
    if v.rich {
        root_keys.push("$schema");
    }
    v.unknown_keys(cx, o, ptr, &root_keys);
    if o.get("type").and_then(Value::as_str) != Some("object") {
        let tp = if o.contains_key("type") {
            at(ptr, "type")
        } else {
            ptr.to_string()
        };
        cx.error(
            "elicitation-form-schema",
            tp,
            "`requestedSchema` must describe an object (`\"type\": \"object\"`) (§12.3)",
        );
    }
    let empty = Map::new();
    let props = match o.get("properties") {
        Some(Value::Object(m)) => m,
        Some(_) => {
            cx.error(
                "elicitation-form-schema",
                at(ptr, "properties"),
                "`properties` must be an object (§12.3)",
            );
            &empty
        }
        None => {
            cx.error(
                "elicitation-form-schema",
                ptr,
                "`requestedSchema` must contain `properties` (§12.3)",
            );
            &empty
        }
    };
    if let Some(req) = o.get("required") {
        let rp = at(ptr, "required");
        match req.as_array() {
            Some(a) => {
                for (i, r) in a.iter().enumerate() {
                    match r.as_str() {
                        Some(n) if props.contains_key(n) => {}
                        Some(n) => cx.error(
                            "elicitation-form-required-unknown",
                            at(&rp, &i.to_string()),
                            format!(
                                "`required` names `{n}`, which is not a declared property (§12.3)"
                            ),
                        ),
                        None => cx.error(
                            "elicitation-form-schema",
                            at(&rp, &i.to_string()),
                            "`required` entries must be strings",
                        ),
                    }
                }
            }
            None => cx.error(
                "elicitation-form-schema",
                rp,
                "`required` must be an array of property names",
            ),
        }
    }
    let pp = at(ptr, "properties");
    for (name, prop) in props {
        v.property(cx, prop, &at(&pp, name));
    }
}

/// Which vocabulary applies, and to which revisions (for messages).
struct Vocab {
    rich: bool,
    revs: RevisionSet,
}

impl Vocab {
    fn unknown_keys(&self, cx: &mut Ctx<'_>, o: &Map<String, Value>, ptr: &str, allowed: &[&str]) {
        for k in o.keys() {
            if !allowed.contains(&k.as_str()) {
                cx.error(
                    "elicitation-form-schema",
                    at(ptr, k),
                    format!(
                        "`{k}` is not part of the elicitation form vocabulary of MCP {} (§12.3)",
                        self.revs
                    ),
                );
            }
        }
    }

    fn not_before_rich(&self, cx: &mut Ctx<'_>, ptr: String, what: &str) {
        cx.error(
            "elicitation-form-schema",
            ptr,
            format!(
                "{what} is not defined for MCP {} (it is defined {}) (§12.3)",
                self.revs,
                Feature::ElicitationRichSchemas.phrase()
            ),
        );
    }

    fn property(&self, cx: &mut Ctx<'_>, prop: &Value, pp: &str) {
        let Some(o) = prop.as_object() else {
            cx.error(
                "elicitation-form-schema",
                pp,
                "a form property must be a primitive schema object (§12.3)",
            );
            return;
        };
        let common = ["type", "title", "description"];
        let ty = o.get("type").and_then(Value::as_str);
        let default = o.get("default");
        let dp = at(pp, "default");
        match ty {
            Some("string") if o.contains_key("enum") => {
                self.unknown_keys(
                    cx,
                    o,
                    pp,
                    &[&common[..], &["enum", "enumNames", "default"]].concat(),
                );
                let values = strings(o.get("enum"));
                if values.is_none() {
                    cx.error(
                        "elicitation-form-schema",
                        at(pp, "enum"),
                        "`enum` must be an array of strings",
                    );
                }
                if let (Some(vals), Some(names)) = (&values, o.get("enumNames")) {
                    if names.as_array().map(Vec::len) != Some(vals.len()) {
                        cx.error("elicitation-enum-names-mismatch", at(pp, "enumNames"), "`enumNames` must contain one display name for every enum value (§12.3)");
                    }
                }
                if let Some(d) = default {
                    if !self.rich {
                        self.not_before_rich(cx, dp.clone(), "an enum default");
                    }
                    if !d
                        .as_str()
                        .is_some_and(|s| values.as_ref().is_some_and(|v| v.contains(&s)))
                    {
                        cx.error(
                            "elicitation-form-default",
                            dp,
                            format!("default {d} is not one of the declared enum values (§12.3)"),
                        );
                    }
                }
            }
            Some("string") if o.contains_key("oneOf") => {
                if !self.rich {
                    self.not_before_rich(cx, at(pp, "oneOf"), "a titled single-select enum");
                }
                self.unknown_keys(cx, o, pp, &[&common[..], &["oneOf", "default"]].concat());
                let consts = titled_options(o.get("oneOf"));
                if consts.is_none() {
                    cx.error(
                        "elicitation-form-schema",
                        at(pp, "oneOf"),
                        "`oneOf` must list `{const, title}` options",
                    );
                }
                if let Some(d) = default {
                    if !d
                        .as_str()
                        .is_some_and(|s| consts.as_ref().is_some_and(|c| c.contains(&s)))
                    {
                        cx.error(
                            "elicitation-form-default",
                            dp,
                            format!("default {d} is not one of the declared options (§12.3)"),
                        );
                    }
                }
            }
            Some("string") => {
                self.unknown_keys(
                    cx,
                    o,
                    pp,
                    &[
                        &common[..],
                        &["minLength", "maxLength", "format", "default"],
                    ]
                    .concat(),
                );
                if let Some(f) = o.get("format") {
                    if !f.as_str().is_some_and(|f| FORMATS.contains(&f)) {
                        cx.error(
                            "elicitation-form-schema",
                            at(pp, "format"),
                            format!(
                                "format {f} is not supported; allowed: {} (§12.3)",
                                FORMATS.join(", ")
                            ),
                        );
                    }
                }
                self.default_of(cx, default, dp, Value::is_string, "a string");
                bounds(cx, o, pp, "minLength", "maxLength");
            }
            Some("number" | "integer") => {
                self.unknown_keys(
                    cx,
                    o,
                    pp,
                    &[&common[..], &["minimum", "maximum", "default"]].concat(),
                );
                self.default_of(cx, default, dp, Value::is_number, "a number");
                bounds(cx, o, pp, "minimum", "maximum");
            }
            Some("boolean") => {
                self.unknown_keys(cx, o, pp, &[&common[..], &["default"]].concat());
                if let Some(d) = default {
                    if !d.is_boolean() {
                        cx.error(
                            "elicitation-form-default",
                            dp,
                            format!("default {d} must be a boolean (§12.3)"),
                        );
                    }
                }
            }
            Some("array") => {
                if !self.rich {
                    self.not_before_rich(cx, at(pp, "type"), "a multi-select enum (`type: array`)");
                }
                self.unknown_keys(
                    cx,
                    o,
                    pp,
                    &[&common[..], &["items", "minItems", "maxItems", "default"]].concat(),
                );
                let items = o.get("items").and_then(Value::as_object);
                let choices = items.and_then(|i| {
                    if i.get("type").and_then(Value::as_str) == Some("string") && i.len() == 2 {
                        strings(i.get("enum"))
                    } else if i.len() == 1 {
                        titled_options(i.get("anyOf"))
                    } else {
                        None
                    }
                });
                if choices.is_none() {
                    cx.error(
                        "elicitation-form-schema",
                        at(pp, "items"),
                        "multi-select `items` must be `{type: string, enum: [...]}` or `{anyOf: [{const, title}, ...]}` (§12.3)",
                    );
                }
                if let Some(d) = default {
                    let ok = d.as_array().is_some_and(|a| {
                        a.iter().all(|x| {
                            x.as_str()
                                .is_some_and(|s| choices.as_ref().is_none_or(|c| c.contains(&s)))
                        })
                    });
                    if !ok {
                        cx.error("elicitation-form-default", dp, format!("every multi-select default value must be one of the item choices, found {d} (§12.3)"));
                    }
                }
                bounds(cx, o, pp, "minItems", "maxItems");
            }
            _ => {
                let tp = if o.contains_key("type") {
                    at(pp, "type")
                } else {
                    pp.to_string()
                };
                cx.error(
                    "elicitation-form-schema",
                    tp,
                    "form properties must be string, number, integer, boolean or multi-select schemas; nested objects and other arrays are not allowed (§12.3)",
                );
            }
        }
    }

    /// Primitive defaults are defined for strings and numbers only from 2025-11-25.
    fn default_of(
        &self,
        cx: &mut Ctx<'_>,
        default: Option<&Value>,
        dp: String,
        ok: fn(&Value) -> bool,
        want: &str,
    ) {
        let Some(d) = default else { return };
        if !self.rich {
            self.not_before_rich(cx, dp.clone(), "this default");
        }
        if !ok(d) {
            cx.error(
                "elicitation-form-default",
                dp,
                format!("default {d} must be {want} (§12.3)"),
            );
        }
    }
}

fn strings(v: Option<&Value>) -> Option<Vec<&str>> {
    v?.as_array()?.iter().map(Value::as_str).collect()
}

fn titled_options(v: Option<&Value>) -> Option<Vec<&str>> {
    v?.as_array()?
        .iter()
        .map(|opt| {
            let o = opt.as_object()?;
            o.get("title")?.as_str()?;
            o.get("const")?.as_str()
        })
        .collect()
}

fn bounds(cx: &mut Ctx<'_>, o: &Map<String, Value>, pp: &str, min: &str, max: &str) {
    if let (Some(lo), Some(hi)) = (
        o.get(min).and_then(Value::as_f64),
        o.get(max).and_then(Value::as_f64),
    ) {
        if lo > hi {
            cx.error(
                "elicitation-form-bounds",
                at(pp, min),
                format!("`{min}` {lo} exceeds `{max}` {hi} (§12.3)"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use serde_json::{Value, json};

    fn prompt(revs: &[&str], els: Value) -> Value {
        doc(
            revs,
            json!({"prompts": [{"name": "p", "elicitations": els}]}),
        )
    }

    #[test]
    fn form_semantics() {
        let d = prompt(
            &["2025-11-25"],
            json!([{"name": "release_channel", "mode": "form", "message": "m", "requestedSchema": {"type": "object",
                      "properties": {"channel": {"type": "string", "enum": ["stable", "preview"], "enumNames": ["Stable"], "default": "nightly"}},
                      "required": ["missing"]}},
                   {"name": "release_channel", "mode": "form", "message": "m", "requestedSchema": {"type": "object", "properties": {}}}]),
        );
        let e = errors(&d);
        let s = "/prompts/0/elicitations";
        assert!(has(
            &e,
            "elicitation-enum-names-mismatch",
            &format!("{s}/0/requestedSchema/properties/channel/enumNames")
        ));
        assert!(has(
            &e,
            "elicitation-form-default",
            &format!("{s}/0/requestedSchema/properties/channel/default")
        ));
        assert!(has(
            &e,
            "elicitation-form-required-unknown",
            &format!("{s}/0/requestedSchema/required/0")
        ));
        assert!(has(
            &e,
            "elicitation-name-duplicate",
            &format!("{s}/1/name")
        ));
        assert_eq!(e.len(), 4, "{e:?}");
    }

    #[test]
    fn vocabulary_depends_on_revision() {
        let labels = json!([{"name": "labels", "mode": "form", "message": "m", "requestedSchema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
            "properties": {"labels": {"type": "array", "items": {"type": "string", "enum": ["bug", "feature"]}, "default": ["bug"]},
                           "name": {"type": "string", "default": "x", "format": "email", "minLength": 1}}}}]);
        assert!(run(&prompt(&["2025-11-25", "2026-07-28"], labels.clone())).is_empty());
        let e = errors(&prompt(&["2025-06-18"], labels));
        let s = "/prompts/0/elicitations/0/requestedSchema";
        assert!(has(&e, "elicitation-form-schema", &format!("{s}/$schema")));
        assert!(has(
            &e,
            "elicitation-form-schema",
            &format!("{s}/properties/labels/type")
        ));
        assert!(has(
            &e,
            "elicitation-form-schema",
            &format!("{s}/properties/name/default")
        ));
        let nested = json!([{"name": "n", "mode": "form", "message": "m", "requestedSchema": {"type": "object",
            "properties": {"o": {"type": "object", "properties": {}}, "f": {"type": "string", "format": "hostname"},
                           "b": {"type": "integer", "minimum": 5, "maximum": 1}, "x": {"type": "boolean", "pattern": "a"}}}}]);
        let e = errors(&prompt(&["2026-07-28"], nested));
        assert!(has(
            &e,
            "elicitation-form-schema",
            &format!("{s}/properties/o/type")
        ));
        assert!(has(
            &e,
            "elicitation-form-schema",
            &format!("{s}/properties/f/format")
        ));
        assert!(has(
            &e,
            "elicitation-form-bounds",
            &format!("{s}/properties/b/minimum")
        ));
        assert!(has(
            &e,
            "elicitation-form-schema",
            &format!("{s}/properties/x/pattern")
        ));
    }

    #[test]
    fn modes_urls_and_scopes() {
        let d = prompt(
            &["2025-11-25"],
            json!([{"name": "mixed", "mode": "form", "message": "m", "url": "not a valid URI", "requestedSchema": {"type": "object", "properties": {}}},
                   {"name": "u", "mode": "url", "message": "m", "requestedSchema": {"type": "object", "properties": {}}},
                   {"name": "f", "mode": "form", "message": "m"}]),
        );
        let e = errors(&d);
        let s = "/prompts/0/elicitations";
        assert!(has(&e, "elicitation-mode-fields", &format!("{s}/0/url")));
        assert!(has(&e, "elicitation-url-invalid", &format!("{s}/0/url")));
        assert!(has(
            &e,
            "elicitation-mode-fields",
            &format!("{s}/1/requestedSchema")
        ));
        assert!(has(&e, "elicitation-mode-fields", &format!("{s}/2")));

        let url = json!([{"name": "a", "mode": "url", "message": "m", "url": "https://auth.example.com/authorize"}]);
        assert!(has(
            &errors(&prompt(&["2025-06-18"], url.clone())),
            "elicitation-mode-inapplicable",
            &format!("{s}/0/mode")
        ));
        assert!(run(&prompt(&["2025-11-25"], url.clone())).is_empty());
        let legacy = prompt(&["2025-03-26"], url);
        assert!(errors(&legacy).is_empty());
        assert!(has(
            &warnings(&legacy),
            "elicitation-validation-incomplete",
            &format!("{s}/0")
        ));

        let d = doc(
            &["2025-11-25", "2026-07-28"],
            json!({"resourceTemplates": [{"uriTemplate": "example:///items/{id}", "name": "item", "protocolVersions": ["2025-11-25"],
                "elicitations": [{"name": "authorize", "mode": "url", "message": "m", "protocolVersions": ["2026-07-28"]}]}]}),
        );
        assert_eq!(
            errors(&d),
            vec![(
                "elicitation-scope-outside-parent".to_string(),
                "/resourceTemplates/0/elicitations/0/protocolVersions".to_string()
            )]
        );
    }

    #[test]
    fn referenced_form_schema_is_checked() {
        let d = doc(
            &["2025-11-25"],
            json!({"components": {"schemas": {"F": {"type": "object", "properties": {"n": {"type": "object"}}}}},
                   "tools": [{"name": "t", "inputSchema": {"type": "object"},
                              "elicitations": [{"name": "e", "mode": "form", "message": "m", "requestedSchema": {"$componentRef": "#/components/schemas/F"}}]}]}),
        );
        assert!(has(
            &errors(&d),
            "elicitation-form-schema",
            "/components/schemas/F/properties/n/type"
        ));
    }
}
