//! Schema findings in the words a user reads: one property `p` of a tool's input (or
//! output) schema changes; the message names it (`p`, `p[]`, `p(anyOf 1)`…) and says
//! what changed with both values.

use super::{doc, expect};
use serde_json::{Value, json};

const P: &str = "/tools/0/inputSchema/properties/p";
const OP: &str = "/tools/0/outputSchema/properties/p";

fn input(schema: Value) -> Value {
    doc(json!({"tools": [{"name": "t", "inputSchema": schema}]}))
}

fn output(schema: Value) -> Value {
    doc(
        json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema}]}),
    )
}

fn prop(p: Value) -> Value {
    json!({"type": "object", "properties": {"p": p}})
}

/// `p` in an input schema: OLD → NEW gives exactly `want` (`{P}` is `p`'s pointer).
#[track_caller]
fn inp(old: Value, new: Value, want: &[&str]) {
    let want: Vec<String> = want.iter().map(|w| w.replace("{P}", P)).collect();
    let want: Vec<&str> = want.iter().map(String::as_str).collect();
    expect(&input(prop(old)), &input(prop(new)), &want);
}

/// `p` in an output schema.
#[track_caller]
fn out(old: Value, new: Value, want: &[&str]) {
    let want: Vec<String> = want.iter().map(|w| w.replace("{P}", OP)).collect();
    let want: Vec<&str> = want.iter().map(String::as_str).collect();
    expect(&output(prop(old)), &output(prop(new)), &want);
}

#[test]
fn type_words() {
    inp(
        json!({"type": "string"}),
        json!({"type": ["string", "null"]}),
        &[
            "non-breaking input-type-widened tool `t`: `p`: type widened from string to null, string | {P}/type | {P}/type",
        ],
    );
    inp(
        json!({"type": ["boolean", "object", "array"]}),
        json!({"type": "boolean"}),
        &[
            "breaking input-type-narrowed tool `t`: `p`: type narrowed from boolean, object, array to boolean | {P}/type | {P}/type",
        ],
    );
    inp(
        json!({"type": "string"}),
        json!({}),
        &[
            "non-breaking input-type-widened tool `t`: `p`: type widened from string to any type | {P}/type | {P}",
        ],
    );
    inp(
        json!({"type": "boolean"}),
        json!({"type": "array"}),
        &[
            "breaking input-type-changed tool `t`: `p`: type changed from boolean to array | {P}/type | {P}/type",
        ],
    );
    inp(
        json!({"type": "object"}),
        json!({"type": "whatever"}),
        &[
            "breaking input-type-narrowed tool `t`: `p`: type narrowed from object to no type | {P}/type | {P}/type",
        ],
    );
    out(
        json!({"type": "integer"}),
        json!({"type": ["integer", "null"]}),
        &[
            "breaking output-type-widened tool `t`: `p`: type widened from integer to null, integer | {P}/type | {P}/type",
        ],
    );
    out(
        json!({"type": ["number", "string"]}),
        json!({"type": "number"}),
        &[
            "non-breaking output-type-narrowed tool `t`: `p`: type narrowed from string, number to number | {P}/type | {P}/type",
        ],
    );
    out(
        json!({"type": "null"}),
        json!({"type": "string"}),
        &[
            "breaking output-type-changed tool `t`: `p`: type changed from null to string | {P}/type | {P}/type",
        ],
    );
}

/// Enumerated values: each removed or added one, by index; values outside the
/// schema's own `type` do not count (`2.5` is not an integer, `2.0` is).
#[test]
fn enum_and_const_values() {
    inp(
        json!({"enum": ["a", "b"]}),
        json!({"enum": ["b", "c"]}),
        &[
            "breaking input-enum-value-removed tool `t`: `p`: value `\"a\"` is no longer allowed | {P}/enum/0 | {P}/enum",
            "non-breaking input-enum-value-added tool `t`: `p`: value `\"c\"` is now allowed | {P}/enum | {P}/enum/1",
        ],
    );
    out(
        json!({"const": 1}),
        json!({"const": 2}),
        &[
            "non-breaking output-enum-value-removed tool `t`: `p`: value `1` is no longer allowed | {P}/const | {P}/const",
            "breaking output-enum-value-added tool `t`: `p`: value `2` is now allowed | {P}/const | {P}/const",
        ],
    );
    inp(
        json!({"type": "string", "enum": ["a", 1]}),
        json!({"type": "string", "enum": ["a"]}),
        &[],
    );
    inp(
        json!({"type": "integer", "enum": [1, 2.5]}),
        json!({"type": "integer", "enum": [1]}),
        &[],
    );
    inp(
        json!({"type": "integer", "enum": [1, 2.0]}),
        json!({"type": "integer", "enum": [1]}),
        &[
            "breaking input-enum-value-removed tool `t`: `p`: value `2.0` is no longer allowed | {P}/enum/1 | {P}/enum",
        ],
    );
    // `1` and `1.0` are one value.
    inp(json!({"enum": [1]}), json!({"enum": [1.0]}), &[]);
    inp(
        json!({"type": "string"}),
        json!({"type": "string", "enum": ["a"]}),
        &[
            "breaking input-enum-added tool `t`: `p`: `enum` now restricts the values | {P} | {P}/enum",
        ],
    );
    inp(
        json!({"type": "string", "const": "a"}),
        json!({"type": "string"}),
        &[
            "non-breaking input-enum-removed tool `t`: `p`: `const` no longer restricts the values | {P}/const | {P}",
        ],
    );
    out(
        json!({"type": "string", "enum": ["a"]}),
        json!({"type": "string"}),
        &[
            "breaking output-enum-removed tool `t`: `p`: `enum` no longer restricts the values | {P}/enum | {P}",
        ],
    );
}

/// Numeric bounds in both forms (2020-12 numbers, draft-04 booleans); the stricter of
/// `minimum`/`exclusiveMinimum` is the bound; only for schemas that admit numbers.
#[test]
fn numeric_bounds() {
    let n = |extra: Value| {
        let mut s = json!({"type": "number"});
        for (k, v) in extra.as_object().into_iter().flatten() {
            s[k] = v.clone();
        }
        s
    };
    inp(
        n(json!({"minimum": 1})),
        n(json!({"minimum": 2})),
        &[
            "breaking input-range-narrowed tool `t`: `p`: `minimum` 1 → `minimum` 2 | {P}/minimum | {P}/minimum",
        ],
    );
    inp(
        n(json!({"minimum": 1})),
        n(json!({"exclusiveMinimum": 1})),
        &[
            "breaking input-range-narrowed tool `t`: `p`: `minimum` 1 → `exclusiveMinimum` 1 | {P}/minimum | {P}/exclusiveMinimum",
        ],
    );
    inp(
        n(json!({"exclusiveMaximum": 5})),
        n(json!({"maximum": 5})),
        &[
            "non-breaking input-range-widened tool `t`: `p`: `exclusiveMaximum` 5 → `maximum` 5 | {P}/exclusiveMaximum | {P}/maximum",
        ],
    );
    inp(
        n(json!({"maximum": 10})),
        n(json!({"maximum": 5.5})),
        &[
            "breaking input-range-narrowed tool `t`: `p`: `maximum` 10 → `maximum` 5.5 | {P}/maximum | {P}/maximum",
        ],
    );
    inp(
        n(json!({"maximum": 5})),
        n(json!({"maximum": 10})),
        &[
            "non-breaking input-range-widened tool `t`: `p`: `maximum` 5 → `maximum` 10 | {P}/maximum | {P}/maximum",
        ],
    );
    // draft-04: `exclusiveMinimum: true` makes `minimum` exclusive.
    inp(
        n(json!({"minimum": 1, "exclusiveMinimum": true})),
        n(json!({"minimum": 1})),
        &[
            "non-breaking input-range-widened tool `t`: `p`: `minimum` 1 → `minimum` 1 | {P}/minimum | {P}/minimum",
        ],
    );
    inp(
        n(json!({"maximum": 1})),
        n(json!({"maximum": 1, "exclusiveMaximum": true})),
        &[
            "breaking input-range-narrowed tool `t`: `p`: `maximum` 1 → `maximum` 1 | {P}/maximum | {P}/maximum",
        ],
    );
    inp(
        n(json!({"minimum": 1, "exclusiveMinimum": false})),
        n(json!({"minimum": 1})),
        &[],
    );
    // Both keywords: the stricter one counts.
    inp(
        n(json!({"minimum": 1, "exclusiveMinimum": 3})),
        n(json!({"minimum": 2})),
        &[
            "non-breaking input-range-widened tool `t`: `p`: `exclusiveMinimum` 3 → `minimum` 2 | {P}/exclusiveMinimum | {P}/minimum",
        ],
    );
    inp(
        n(json!({"maximum": 9, "exclusiveMaximum": 3})),
        n(json!({"maximum": 3, "exclusiveMaximum": 9})),
        &[
            "non-breaking input-range-widened tool `t`: `p`: `exclusiveMaximum` 3 → `maximum` 3 | {P}/exclusiveMaximum | {P}/maximum",
        ],
    );
    inp(
        n(json!({})),
        n(json!({"minimum": 0})),
        &["breaking input-range-narrowed tool `t`: `p`: `minimum` 0 added | {P} | {P}/minimum"],
    );
    out(
        n(json!({"maximum": 5})),
        n(json!({})),
        &["breaking output-range-widened tool `t`: `p`: `maximum` 5 removed | {P}/maximum | {P}"],
    );
    out(
        n(json!({"minimum": 1})),
        n(json!({"minimum": 2})),
        &[
            "non-breaking output-range-narrowed tool `t`: `p`: `minimum` 1 → `minimum` 2 | {P}/minimum | {P}/minimum",
        ],
    );
    // Strings have no numeric bounds.
    inp(
        json!({"type": "string", "minimum": 1}),
        json!({"type": "string", "minimum": 2}),
        &[],
    );
    inp(
        json!({"type": "integer", "maximum": 3}),
        json!({"type": "integer", "maximum": 2}),
        &[
            "breaking input-range-narrowed tool `t`: `p`: `maximum` 3 → `maximum` 2 | {P}/maximum | {P}/maximum",
        ],
    );
}

#[test]
fn multiple_of() {
    let m = |v: Option<f64>| match v {
        Some(v) => json!({"type": "number", "multipleOf": v}),
        None => json!({"type": "number"}),
    };
    inp(
        m(Some(2.0)),
        m(Some(4.0)),
        &[
            "breaking input-range-narrowed tool `t`: `p`: `multipleOf` 2.0 → 4.0 | {P}/multipleOf | {P}/multipleOf",
        ],
    );
    inp(
        m(Some(0.5)),
        m(Some(0.25)),
        &[
            "non-breaking input-range-widened tool `t`: `p`: `multipleOf` 0.5 → 0.25 | {P}/multipleOf | {P}/multipleOf",
        ],
    );
    inp(
        m(Some(2.0)),
        m(Some(3.0)),
        &[
            "breaking input-range-changed tool `t`: `p`: `multipleOf` 2.0 → 3.0 | {P}/multipleOf | {P}/multipleOf",
        ],
    );
    inp(
        m(None),
        m(Some(2.0)),
        &[
            "breaking input-range-narrowed tool `t`: `p`: `multipleOf` none → 2.0 | {P} | {P}/multipleOf",
        ],
    );
    out(
        m(Some(2.0)),
        m(None),
        &[
            "breaking output-range-widened tool `t`: `p`: `multipleOf` 2.0 → none | {P}/multipleOf | {P}",
        ],
    );
    out(
        m(Some(0.1)),
        m(Some(0.3)),
        &[
            "non-breaking output-range-narrowed tool `t`: `p`: `multipleOf` 0.1 → 0.3 | {P}/multipleOf | {P}/multipleOf",
        ],
    );
    out(
        m(Some(1.5)),
        m(Some(1.0)),
        &[
            "breaking output-range-changed tool `t`: `p`: `multipleOf` 1.5 → 1.0 | {P}/multipleOf | {P}/multipleOf",
        ],
    );
    inp(
        json!({"type": "integer", "multipleOf": 2}),
        json!({"type": "integer", "multipleOf": 2.0}),
        &[],
    );
}

/// Length and count bounds of strings, arrays and objects (absent minimum is 0,
/// absent maximum unbounded).
#[test]
fn sizes() {
    inp(
        json!({"type": "string", "minLength": 1, "maxLength": 5}),
        json!({"type": "string", "minLength": 2, "maxLength": 9}),
        &[
            "breaking input-size-narrowed tool `t`: `p`: `minLength` 1 → 2 | {P}/minLength | {P}/minLength",
            "non-breaking input-size-widened tool `t`: `p`: `maxLength` 5 → 9 | {P}/maxLength | {P}/maxLength",
        ],
    );
    inp(
        json!({"type": "string", "minLength": 2}),
        json!({"type": "string", "maxLength": 3}),
        &[
            "non-breaking input-size-widened tool `t`: `p`: `minLength` 2 → none | {P}/minLength | {P}",
            "breaking input-size-narrowed tool `t`: `p`: `maxLength` none → 3 | {P} | {P}/maxLength",
        ],
    );
    inp(
        json!({"type": "string", "minLength": 0}),
        json!({"type": "string"}),
        &[],
    );
    out(
        json!({"type": "array", "minItems": 1, "maxItems": 3}),
        json!({"type": "array", "minItems": 0, "maxItems": 2}),
        &[
            "breaking output-size-widened tool `t`: `p`: `minItems` 1 → 0 | {P}/minItems | {P}/minItems",
            "non-breaking output-size-narrowed tool `t`: `p`: `maxItems` 3 → 2 | {P}/maxItems | {P}/maxItems",
        ],
    );
    inp(
        json!({"type": "object", "maxProperties": 4}),
        json!({"type": "object", "minProperties": 1, "maxProperties": 4}),
        &[
            "breaking input-size-narrowed tool `t`: `p`: `minProperties` none → 1 | {P} | {P}/minProperties",
        ],
    );
    // Bounds of a type the schema does not admit are not compared.
    inp(
        json!({"type": "integer", "maxLength": 1}),
        json!({"type": "integer", "maxLength": 2}),
        &[],
    );
    inp(
        json!({"type": "string", "maxItems": 1}),
        json!({"type": "string", "maxItems": 2}),
        &[],
    );
    inp(
        json!({"type": "string", "maxProperties": 1}),
        json!({"type": "string", "maxProperties": 2}),
        &[],
    );
}

/// `pattern` is never compared as a language; `format` on strings is an assertion, on
/// anything else an annotation.
#[test]
fn pattern_and_format() {
    let s = |k: &str, v: &str| json!({"type": "string", k: v});
    inp(
        json!({"type": "string"}),
        s("pattern", "^a"),
        &[
            "possibly-breaking input-pattern-added tool `t`: `p`: `pattern` `\"^a\"` added | {P} | {P}/pattern",
        ],
    );
    inp(
        s("pattern", "^a"),
        json!({"type": "string"}),
        &[
            "non-breaking input-pattern-removed tool `t`: `p`: `pattern` `\"^a\"` removed | {P}/pattern | {P}",
        ],
    );
    out(
        s("pattern", "^a"),
        s("pattern", "^b"),
        &[
            "possibly-breaking output-pattern-changed tool `t`: `p`: `pattern` `\"^a\"` → `\"^b\"`; regular expressions are not compared | {P}/pattern | {P}/pattern",
        ],
    );
    inp(
        s("format", "date"),
        s("format", "date-time"),
        &[
            "breaking input-format-changed tool `t`: `p`: `format` `\"date\"` → `\"date-time\"` | {P}/format | {P}/format",
        ],
    );
    out(
        s("format", "uuid"),
        json!({"type": "string"}),
        &[
            "breaking output-format-removed tool `t`: `p`: `format` `\"uuid\"` removed | {P}/format | {P}",
        ],
    );
    inp(
        json!({"type": "string"}),
        s("format", "email"),
        &[
            "breaking input-format-added tool `t`: `p`: `format` `\"email\"` added | {P} | {P}/format",
        ],
    );
    inp(
        json!({"type": "integer", "format": "int32"}),
        json!({"type": "integer", "format": "int64"}),
        &[
            "info input-annotation-changed tool `t`: `p`: `format` changed | {P}/format | {P}/format",
        ],
    );
    inp(
        json!({"type": "integer", "pattern": "^1"}),
        json!({"type": "integer", "pattern": "^2"}),
        &[],
    );
}

#[test]
fn annotations_dialect_and_unmodelled_keywords() {
    inp(
        json!({"type": "string"}),
        json!({"type": "string", "description": "d"}),
        &[
            "info input-annotation-changed tool `t`: `p`: `description` added | {P} | {P}/description",
        ],
    );
    inp(
        json!({"type": "string", "default": "a", "title": "A"}),
        json!({"type": "string", "default": "b"}),
        &[
            "info input-annotation-changed tool `t`: `p`: `title` removed | {P}/title | {P}",
            "info input-annotation-changed tool `t`: `p`: `default` changed | {P}/default | {P}/default",
        ],
    );
    // `examples` and `$comment` are ignored.
    inp(
        json!({"type": "string", "examples": ["a"], "$comment": "x"}),
        json!({"type": "string", "examples": ["b"]}),
        &[],
    );
    let root = "/tools/0/inputSchema";
    expect(
        &input(
            json!({"type": "object", "$schema": "https://json-schema.org/draft/2020-12/schema"}),
        ),
        &input(json!({"type": "object", "$schema": "http://json-schema.org/draft-07/schema#"})),
        &[&format!(
            "possibly-breaking input-dialect-changed tool `t`: `$schema` changed | {root}/$schema | {root}/$schema"
        )],
    );
    inp(
        json!({"type": "object", "propertyNames": {"maxLength": 3}, "x-a": 1, "x-mcp-header": "A"}),
        json!({"type": "object", "propertyNames": {"maxLength": 4}, "x-a": 2, "x-mcp-header": "B"}),
        &[
            "possibly-breaking input-keyword-changed tool `t`: `p`: keyword `propertyNames` changed; its effect is not modelled, compatibility is not decided | {P}/propertyNames | {P}/propertyNames",
            "info extension-changed tool `t`: `p`: extension `x-a` changed | {P}/x-a | {P}/x-a",
            "possibly-breaking input-keyword-changed tool `t`: `p`: keyword `x-mcp-header` changed; its effect is not modelled, compatibility is not decided | {P}/x-mcp-header | {P}/x-mcp-header",
        ],
    );
    inp(
        json!({"not": {"type": "string"}}),
        json!({"not": {"type": "integer"}}),
        &[
            "possibly-breaking input-composition-changed tool `t`: `p`: `not` changed; compatibility is not decided | {P}/not | {P}/not",
        ],
    );
    inp(
        json!({"if": {"type": "string"}, "then": {"minLength": 1}}),
        json!({"if": {"type": "string"}, "then": {"minLength": 2}}),
        &[
            "possibly-breaking input-composition-changed tool `t`: `p`: `if`/`then`/`else` changed; compatibility is not decided | {P}/then | {P}/then",
        ],
    );
    out(
        json!({"if": {"type": "string"}, "then": {}, "else": {"minLength": 1}}),
        json!({"if": {"type": "string"}, "then": {}}),
        &[
            "possibly-breaking output-composition-changed tool `t`: `p`: `if`/`then`/`else` changed; compatibility is not decided | {P}/else | {P}",
        ],
    );
}

/// Schemas that accept nothing (`false`, `{"not": {}}`) or everything.
#[test]
fn trivial_schemas() {
    inp(
        json!({"type": "string"}),
        json!({"not": {}}),
        &["breaking input-schema-narrowed tool `t`: `p`: now allows no value | {P} | {P}"],
    );
    inp(
        json!(false),
        json!({"description": "anything"}),
        &[
            "non-breaking input-schema-widened tool `t`: `p`: allowed no value before, now allows some | {P} | {P}",
        ],
    );
    out(
        json!({"not": {"description": "d"}}),
        json!({"type": "string"}),
        &[
            "breaking output-schema-widened tool `t`: `p`: allowed no value before, now allows some | {P} | {P}",
        ],
    );
    out(json!(false), json!({"not": {}}), &[]);
    // `{"not": {...}}` beside another assertion is not trivial.
    inp(
        json!({"type": "string"}),
        json!({"not": {}, "type": "string"}),
        &[
            "possibly-breaking input-composition-changed tool `t`: `p`: `not` changed; compatibility is not decided | {P} | {P}/not",
        ],
    );
}

/// Properties added and removed, per direction and per what the other side applies
/// to undeclared properties; `required` changes.
#[test]
fn properties_by_direction() {
    let s = |props: Value, extra: Value| {
        let mut s = json!({"type": "object", "properties": props});
        for (k, v) in extra.as_object().into_iter().flatten() {
            s[k] = v.clone();
        }
        s
    };
    let r = "/tools/0/inputSchema";
    let o = "/tools/0/outputSchema";
    let closed = json!({"additionalProperties": false});
    let str_ = json!({"type": "string"});
    // Input, closed: added is harmless, removed breaks.
    expect(
        &input(s(json!({"a": str_}), closed.clone())),
        &input(s(json!({"b": str_}), closed.clone())),
        &[
            &format!(
                "breaking input-property-removed tool `t`: property `a` removed; undeclared properties are rejected | {r}/properties/a | {r}/properties"
            ),
            &format!(
                "non-breaking input-property-added tool `t`: property `b` added | {r}/properties | {r}/properties/b"
            ),
        ],
    );
    // Input, open: OLD accepted anything for a new property; NEW still accepts a removed one.
    expect(
        &input(s(json!({"a": str_}), json!({}))),
        &input(s(json!({"b": str_}), json!({}))),
        &[
            &format!(
                "non-breaking input-property-undeclared tool `t`: property `a` is no longer declared (still accepted as an undeclared property) | {r}/properties/a | {r}/properties"
            ),
            &format!(
                "non-breaking input-property-added tool `t`: property `b` added (OLD accepted any value for it) | {r}/properties | {r}/properties/b"
            ),
            &format!(
                "breaking input-type-narrowed tool `t`: `b`: type narrowed from any type to string | {r} | {r}/properties/b/type"
            ),
        ],
    );
    expect(
        &input(s(json!({}), json!({}))),
        &input(s(json!({"b": str_}), json!({"required": ["b"]}))),
        &[&format!(
            "breaking input-property-required tool `t`: property `b` is new and required | {r}/properties | {r}/properties/b"
        )],
    );
    // Against an `additionalProperties` schema: the two schemas are compared.
    expect(
        &input(s(
            json!({}),
            json!({"additionalProperties": {"type": "string"}}),
        )),
        &input(s(
            json!({"b": {"type": "integer"}}),
            json!({"additionalProperties": {"type": "string"}}),
        )),
        &[&format!(
            "breaking input-type-changed tool `t`: `b`: type changed from string to integer | {r}/additionalProperties/type | {r}/properties/b/type"
        )],
    );
    expect(
        &input(s(
            json!({"b": {"type": "integer"}}),
            json!({"additionalProperties": {"type": "number"}}),
        )),
        &input(s(
            json!({}),
            json!({"additionalProperties": {"type": "number"}}),
        )),
        &[&format!(
            "non-breaking input-type-widened tool `t`: `b`: type widened from integer to number | {r}/properties/b/type | {r}/additionalProperties/type"
        )],
    );
    // `patternProperties` may apply: undecided.
    expect(
        &input(s(json!({}), json!({"patternProperties": {"^x": {}}}))),
        &input(s(
            json!({"b": str_}),
            json!({"patternProperties": {"^x": {}}}),
        )),
        &[&format!(
            "possibly-breaking input-keyword-changed tool `t`: property `b` is declared on one side only and may match `patternProperties`; compatibility is not decided | {r}/properties | {r}/properties"
        )],
    );
    // Output: added to a closed schema breaks, to an open one does not.
    expect(
        &output(s(json!({}), closed.clone())),
        &output(s(json!({"b": str_}), closed.clone())),
        &[&format!(
            "breaking output-property-added-to-closed tool `t`: property `b` added, but OLD forbade undeclared properties | {o}/additionalProperties | {o}/properties/b"
        )],
    );
    expect(
        &output(s(json!({}), json!({}))),
        &output(s(json!({"b": str_}), json!({"required": ["b"]}))),
        &[
            &format!(
                "non-breaking output-property-added tool `t`: property `b` added | {o}/properties | {o}/properties/b"
            ),
            &format!(
                "non-breaking output-property-required tool `t`: property `b` is now required | {o} | {o}/required/0"
            ),
        ],
    );
    // Output removals.
    expect(
        &output(s(json!({"a": str_}), json!({"required": ["a"]}))),
        &output(s(json!({}), json!({}))),
        &[&format!(
            "breaking output-property-removed tool `t`: property `a` was required and is no longer declared | {o}/properties/a | {o}/properties"
        )],
    );
    expect(
        &output(s(json!({"a": str_}), closed.clone())),
        &output(s(json!({}), closed)),
        &[&format!(
            "non-breaking output-optional-property-removed tool `t`: property `a` (optional) is no longer produced | {o}/properties/a | {o}/properties"
        )],
    );
    expect(
        &output(s(json!({"a": str_}), json!({}))),
        &output(s(json!({}), json!({}))),
        &[&format!(
            "breaking output-property-removed tool `t`: property `a` is no longer declared; its value is unconstrained | {o}/properties/a | {o}/properties"
        )],
    );
    // `required` alone.
    expect(
        &input(s(json!({"a": str_}), json!({"required": ["a"]}))),
        &input(s(json!({"a": str_}), json!({}))),
        &[&format!(
            "non-breaking input-property-optional tool `t`: property `a` is no longer required | {r}/required/0 | {r}"
        )],
    );
    expect(
        &output(s(json!({"a": str_}), json!({"required": ["a"]}))),
        &output(s(json!({"a": str_}), json!({"required": []}))),
        &[&format!(
            "breaking output-property-optional tool `t`: property `a` is no longer required | {o}/required/0 | {o}/required"
        )],
    );
    expect(
        &input(s(json!({}), json!({"required": ["z"]}))),
        &input(s(json!({}), json!({}))),
        &[&format!(
            "non-breaking input-property-optional tool `t`: property `z` is no longer required | {r}/required/0 | {r}"
        )],
    );
}

#[test]
fn additional_and_pattern_properties() {
    let r = "/tools/0/inputSchema";
    let s = |ap: Value| json!({"type": "object", "additionalProperties": ap});
    expect(
        &input(s(json!(true))),
        &input(s(json!(false))),
        &[&format!(
            "breaking input-additional-properties-closed tool `t`: undeclared properties are now rejected | {r}/additionalProperties | {r}/additionalProperties"
        )],
    );
    expect(
        &output(json!({"type": "object", "additionalProperties": false})),
        &output(json!({"type": "object"})),
        &[
            "breaking output-additional-properties-opened tool `t`: undeclared properties are now allowed | /tools/0/outputSchema/additionalProperties | /tools/0/outputSchema",
        ],
    );
    expect(
        &input(s(json!({"type": "string"}))),
        &input(s(json!({"type": "integer"}))),
        &[&format!(
            "breaking input-type-changed tool `t`: `*`: type changed from string to integer | {r}/additionalProperties/type | {r}/additionalProperties/type"
        )],
    );
    expect(&input(s(json!(false))), &input(s(json!({"not": {}}))), &[]);
    let pp = |m: Value| json!({"type": "object", "patternProperties": m});
    expect(
        &input(pp(json!({"^x": {"type": "string"}, "^y": {}}))),
        &input(pp(json!({"^x": {"type": "integer"}, "^z": {}}))),
        &[
            &format!(
                "breaking input-type-changed tool `t`: `/^x/`: type changed from string to integer | {r}/patternProperties/^x/type | {r}/patternProperties/^x/type"
            ),
            &format!(
                "possibly-breaking input-keyword-changed tool `t`: `patternProperties` `^y` removed; compatibility is not decided | {r}/patternProperties | {r}/patternProperties"
            ),
            &format!(
                "possibly-breaking input-keyword-changed tool `t`: `patternProperties` `^z` added; compatibility is not decided | {r}/patternProperties | {r}/patternProperties"
            ),
        ],
    );
}

/// Array items, positional items (both forms) and `uniqueItems`, named `p[]`, `p[0]`.
#[test]
fn arrays() {
    inp(
        json!({"type": "array", "items": {"type": "string"}}),
        json!({"type": "array", "items": {"type": "integer"}}),
        &[
            "breaking input-type-changed tool `t`: `p[]`: type changed from string to integer | {P}/items/type | {P}/items/type",
        ],
    );
    inp(
        json!({"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "number"}}),
        json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false}),
        &[
            "breaking input-type-narrowed tool `t`: `p[1]`: type narrowed from number to integer | {P}/items/type | {P}/prefixItems/1/type",
            "breaking input-schema-narrowed tool `t`: `p[]`: now allows no value | {P}/items | {P}/items",
        ],
    );
    inp(
        json!({"type": "array", "items": [{"type": "string"}], "additionalItems": {"type": "string"}}),
        json!({"type": "array", "items": [{"type": "string", "maxLength": 2}]}),
        &[
            "breaking input-size-narrowed tool `t`: `p[0]`: `maxLength` none → 2 | {P}/items/0 | {P}/items/0/maxLength",
            "non-breaking input-type-widened tool `t`: `p[]`: type widened from string to any type | {P}/additionalItems/type | {P}",
        ],
    );
    inp(
        json!({"type": "array"}),
        json!({"type": "array", "uniqueItems": true}),
        &[
            "breaking input-unique-items-added tool `t`: `p`: `uniqueItems` added | {P} | {P}/uniqueItems",
        ],
    );
    out(
        json!({"type": "array", "uniqueItems": true}),
        json!({"type": "array", "uniqueItems": false}),
        &[
            "breaking output-unique-items-removed tool `t`: `p`: `uniqueItems` removed | {P}/uniqueItems | {P}/uniqueItems",
        ],
    );
    // Arrays only: `items` of a string schema are not compared.
    inp(
        json!({"type": "string", "items": {"type": "string"}}),
        json!({"type": "string", "items": {"type": "integer"}}),
        &[],
    );
}

/// `anyOf`/`oneOf`/`allOf`: entries added and removed, paired entries compared inside
/// (a breaking change in an `anyOf` entry is possibly breaking; in a `oneOf` whose
/// entries overlap, so is a harmless one).
#[test]
fn compositions() {
    let s = json!({"type": "string"});
    let i = json!({"type": "integer"});
    inp(
        json!({"anyOf": [s]}),
        json!({"anyOf": [s, i]}),
        &[
            "non-breaking input-alternative-added tool `t`: `p`: `anyOf` entry 2 added | {P}/anyOf | {P}/anyOf/1",
        ],
    );
    inp(
        json!({"anyOf": [s, i]}),
        json!({"anyOf": [i]}),
        &[
            "breaking input-alternative-removed tool `t`: `p`: `anyOf` entry 1 removed | {P}/anyOf/0 | {P}/anyOf",
        ],
    );
    out(
        json!({"anyOf": [s]}),
        json!({"anyOf": [i, s]}),
        &[
            "breaking output-alternative-added tool `t`: `p`: `anyOf` entry 1 added | {P}/anyOf | {P}/anyOf/0",
        ],
    );
    inp(
        json!({"allOf": [s]}),
        json!({"allOf": [s, {"maxLength": 3}]}),
        &[
            "possibly-breaking input-conjunct-added tool `t`: `p`: `allOf` entry 2 added | {P}/allOf | {P}/allOf/1",
        ],
    );
    out(
        json!({"allOf": [s, {"maxLength": 3}]}),
        json!({"allOf": [s]}),
        &[
            "possibly-breaking output-conjunct-removed tool `t`: `p`: `allOf` entry 2 removed | {P}/allOf/1 | {P}/allOf",
        ],
    );
    inp(
        json!({}),
        json!({"oneOf": [s]}),
        &["possibly-breaking input-conjunct-added tool `t`: `p`: `oneOf` added | {P} | {P}/oneOf"],
    );
    inp(
        json!({"anyOf": [s]}),
        json!({}),
        &["non-breaking input-conjunct-removed tool `t`: `p`: `anyOf` removed | {P}/anyOf | {P}"],
    );
    // Overlapping `oneOf` entries: a new one may make values ambiguous.
    inp(
        json!({"oneOf": [s]}),
        json!({"oneOf": [s, {"maxLength": 3}]}),
        &[
            "possibly-breaking input-composition-changed tool `t`: `p`: `oneOf` entry 2 added: values matching two entries are now rejected; compatibility is not decided | {P}/oneOf | {P}/oneOf/1",
        ],
    );
    // Disjoint types: a `oneOf` is an `anyOf`.
    inp(
        json!({"oneOf": [s]}),
        json!({"oneOf": [s, i]}),
        &[
            "non-breaking input-alternative-added tool `t`: `p`: `oneOf` entry 2 added | {P}/oneOf | {P}/oneOf/1",
        ],
    );
    // Paired entries: compared inside, masked.
    inp(
        json!({"anyOf": [{"type": "string", "maxLength": 5}, i]}),
        json!({"anyOf": [{"type": "string", "maxLength": 3}, i]}),
        &[
            "possibly-breaking input-size-narrowed tool `t`: `p(anyOf 1)`: `maxLength` 5 → 3 | {P}/anyOf/0/maxLength | {P}/anyOf/0/maxLength",
        ],
    );
    inp(
        json!({"anyOf": [{"type": "string", "maxLength": 3}, i]}),
        json!({"anyOf": [{"type": "string", "maxLength": 5}, i]}),
        &[
            "non-breaking input-size-widened tool `t`: `p(anyOf 1)`: `maxLength` 3 → 5 | {P}/anyOf/0/maxLength | {P}/anyOf/0/maxLength",
        ],
    );
    inp(
        json!({"oneOf": [{"type": "string", "maxLength": 3}, {"type": "string", "minLength": 1}]}),
        json!({"oneOf": [{"type": "string", "maxLength": 5}, {"type": "string", "minLength": 1}]}),
        &[
            "possibly-breaking input-size-widened tool `t`: `p(oneOf 1)`: `maxLength` 3 → 5 | {P}/oneOf/0/maxLength | {P}/oneOf/0/maxLength",
        ],
    );
    inp(
        json!({"oneOf": [{"type": "string", "maxLength": 5}, {"type": "string", "minLength": 1}]}),
        json!({"oneOf": [{"type": "string", "maxLength": 3}, {"type": "string", "minLength": 1}]}),
        &[
            "possibly-breaking input-size-narrowed tool `t`: `p(oneOf 1)`: `maxLength` 5 → 3 | {P}/oneOf/0/maxLength | {P}/oneOf/0/maxLength",
        ],
    );
    // Info stays info inside a composition.
    inp(
        json!({"oneOf": [{"type": "string", "x-a": 1}, {"type": "string", "minLength": 1}]}),
        json!({"oneOf": [{"type": "string", "x-a": 2}, {"type": "string", "minLength": 1}]}),
        &[
            "info extension-changed tool `t`: `p(oneOf 1)`: extension `x-a` changed | {P}/oneOf/0/x-a | {P}/oneOf/0/x-a",
        ],
    );
    // Reordered equal entries are equal.
    inp(json!({"anyOf": [s, i]}), json!({"anyOf": [i, s]}), &[]);
}

/// `$ref`: local targets compared, `$ref` beside other keywords as a conjunct, and
/// references that cannot be followed.
#[test]
fn references() {
    let r = "/tools/0/inputSchema";
    let with = |p: Value, def: Value| json!({"type": "object", "properties": {"p": p}, "$defs": {"D": def}});
    expect(
        &input(with(
            json!({"$ref": "#/$defs/D"}),
            json!({"type": "string"}),
        )),
        &input(with(
            json!({"$ref": "#/$defs/D"}),
            json!({"type": "integer"}),
        )),
        &[&format!(
            "breaking input-type-changed tool `t`: `p`: type changed from string to integer | {r}/$defs/D/type | {r}/$defs/D/type"
        )],
    );
    // Beside other keywords, the target's change is masked (a conjunct).
    expect(
        &input(with(
            json!({"$ref": "#/$defs/D", "maxLength": 3}),
            json!({"type": "string"}),
        )),
        &input(with(
            json!({"$ref": "#/$defs/D", "maxLength": 3}),
            json!({"type": "integer"}),
        )),
        &[&format!(
            "possibly-breaking input-type-changed tool `t`: `p`: type changed from string to integer | {r}/$defs/D/type | {r}/$defs/D/type"
        )],
    );
    expect(
        &input(with(json!({"maxLength": 3}), json!({"type": "string"}))),
        &input(with(
            json!({"$ref": "#/$defs/D", "maxLength": 3}),
            json!({"type": "string"}),
        )),
        &[&format!(
            "possibly-breaking input-conjunct-added tool `t`: `p`: `$ref` added beside other keywords | {r}/properties/p | {r}/properties/p/$ref"
        )],
    );
    expect(
        &output(with(
            json!({"$ref": "#/$defs/D", "maxLength": 3}),
            json!({}),
        )),
        &output(with(json!({"maxLength": 3}), json!({}))),
        &[
            "possibly-breaking output-conjunct-removed tool `t`: `p`: `$ref` beside other keywords removed | /tools/0/outputSchema/properties/p/$ref | /tools/0/outputSchema/properties/p",
        ],
    );
    inp(
        json!({"$ref": "https://a.example/s.json"}),
        json!({"$ref": "https://b.example/s.json"}),
        &[
            "possibly-breaking input-ref-unresolved tool `t`: `p`: `$ref` `https://a.example/s.json` → `https://b.example/s.json` is not followed (not a local JSON pointer); compatibility is not decided | {P}/$ref | {P}/$ref",
        ],
    );
    // The same remote reference, in documents that differ elsewhere: the same schema.
    expect(
        &input(
            json!({"type": "object", "properties": {"p": {"$ref": "https://a.example/s.json"}, "q": {"type": "string"}}}),
        ),
        &input(
            json!({"type": "object", "properties": {"p": {"$ref": "https://a.example/s.json"}, "q": {"type": "integer"}}}),
        ),
        &[&format!(
            "breaking input-type-changed tool `t`: `q`: type changed from string to integer | {r}/properties/q/type | {r}/properties/q/type"
        )],
    );
    // A dynamic reference is not followed: where the schema around it changed, undecided.
    expect(
        &input(
            json!({"type": "object", "$dynamicRef": "#node", "properties": {"q": {"type": "string"}}}),
        ),
        &input(
            json!({"type": "object", "$dynamicRef": "#node", "properties": {"q": {"type": "integer"}}}),
        ),
        &[
            &format!(
                "breaking input-type-changed tool `t`: `q`: type changed from string to integer | {r}/properties/q/type | {r}/properties/q/type"
            ),
            &format!(
                "possibly-breaking input-ref-unresolved tool `t`: keyword `$dynamicRef` is not followed and the schema around it changed; compatibility is not decided | {r}/$dynamicRef | {r}/$dynamicRef"
            ),
        ],
    );
}

/// Past the depth budget: one possibly-breaking finding, not silence.
#[test]
fn deeper_than_followed() {
    let nest = |leaf: Value| {
        let mut s = leaf;
        for _ in 0..70 {
            s = json!({"type": "array", "items": s});
        }
        s
    };
    let got = super::lines(
        &input(prop(nest(json!({"type": "string"})))),
        &input(prop(nest(json!({"type": "integer"})))),
    );
    assert_eq!(got.len(), 1, "{got:?}");
    let items = "/items".repeat(64);
    // `p` and 64 × `[]` is 129 characters: quoted, it is cut to 120 and `…`.
    let path = format!("p{}…", &"[]".repeat(64)[..119]);
    assert_eq!(
        got[0],
        format!(
            "possibly-breaking input-too-complex tool `t`: `{path}`: the schemas differ deeper than the comparison follows; review by hand | {P}{items} | {P}{items}"
        )
    );
}

/// Each way the comparison descends counts one level: 70 levels of any of them end in
/// one possibly-breaking finding, never in the change at the bottom.
#[test]
fn every_descent_counts_against_the_depth_budget() {
    type Wrap = fn(Value) -> Value;
    let props: Wrap = |s| json!({"type": "object", "properties": {"n": s}});
    let items: Wrap = |s| json!({"type": "array", "items": s});
    let prefix: Wrap = |s| json!({"type": "array", "prefixItems": [s]});
    let additional: Wrap = |s| json!({"type": "object", "additionalProperties": s});
    let pattern: Wrap = |s| json!({"type": "object", "patternProperties": {"^n": s}});
    let any_of: Wrap = |s| json!({"anyOf": [s, {"type": "null"}]});
    let open: Wrap = |_| json!({"type": "object"});
    let cases: [(&str, Wrap, Wrap); 9] = [
        ("properties", props, props),
        ("items", items, items),
        ("prefixItems", prefix, prefix),
        ("additionalProperties", additional, additional),
        ("patternProperties", pattern, pattern),
        ("anyOf", any_of, any_of),
        ("added against additionalProperties", additional, props),
        ("removed against additionalProperties", props, additional),
        ("added against an open object", open, props),
    ];
    for (what, o, n) in cases {
        let (mut old, mut new) = (json!({"type": "string"}), json!({"type": "integer"}));
        for _ in 0..70 {
            old = o(old);
            new = n(new);
        }
        let got = super::lines(&input(old), &input(new));
        assert!(
            got.iter().any(|l| l.contains(" input-too-complex ")),
            "{what}: {got:?}"
        );
        assert!(
            !got.iter().any(|l| l.contains("integer")),
            "{what}: the bottom was reached: {got:?}"
        );
    }
}

/// Type lists are sets (a repeated or subsumed name changes nothing); bounds of a type
/// only NEW or only OLD admits are still compared.
#[test]
fn type_sets_and_the_types_either_side_admits() {
    inp(
        json!({"type": ["integer", "number"]}),
        json!({"type": "number"}),
        &[],
    );
    inp(
        json!({"type": ["string", "string"]}),
        json!({"type": "string"}),
        &[],
    );
    inp(
        json!({"type": "string", "maxLength": 3}),
        json!({"type": "integer", "maxLength": 5}),
        &[
            "breaking input-type-changed tool `t`: `p`: type changed from string to integer | {P}/type | {P}/type",
            "non-breaking input-size-widened tool `t`: `p`: `maxLength` 3 → 5 | {P}/maxLength | {P}/maxLength",
        ],
    );
    // An equal `pattern` beside another change is no finding of its own.
    inp(
        json!({"type": "string", "pattern": "^a", "maxLength": 3}),
        json!({"type": "string", "pattern": "^a", "maxLength": 4}),
        &[
            "non-breaking input-size-widened tool `t`: `p`: `maxLength` 3 → 4 | {P}/maxLength | {P}/maxLength",
        ],
    );
}

#[test]
fn closing_opening_and_pattern_keys_from_nothing() {
    let r = "/tools/0/inputSchema";
    expect(
        &input(json!({"type": "object"})),
        &input(json!({"type": "object", "additionalProperties": false})),
        &[&format!(
            "breaking input-additional-properties-closed tool `t`: undeclared properties are now rejected | {r} | {r}/additionalProperties"
        )],
    );
    expect(
        &input(json!({"type": "object"})),
        &input(json!({"type": "object", "patternProperties": {"^x": {}}})),
        &[&format!(
            "possibly-breaking input-keyword-changed tool `t`: `patternProperties` `^x` added; compatibility is not decided | {r} | {r}/patternProperties"
        )],
    );
    // An empty `patternProperties` matches nothing: OLD accepted any value for `b`.
    expect(
        &input(json!({"type": "object", "patternProperties": {}})),
        &input(json!({"type": "object", "patternProperties": {}, "properties": {"b": {}}})),
        &[&format!(
            "non-breaking input-property-added tool `t`: property `b` added (OLD accepted any value for it) | {r} | {r}/properties/b"
        )],
    );
}

/// What may sit beside a `$ref` without changing it (annotations, `$defs`, `x-`
/// keys): the reference is followed as if alone; references inside arrays of
/// equal subschemas are followed too; a remote reference a document claims with an
/// embedded `$id` is not "the same unfetched schema".
#[test]
fn references_beside_annotations_and_inside_equal_subschemas() {
    let r = "/tools/0/inputSchema";
    let with = |p: Value, def: Value| json!({"type": "object", "properties": {"p": p}, "$defs": {"D": def}});
    let p = json!({"$ref": "#/$defs/D", "description": "d", "definitions": {}, "x-note": 1});
    expect(
        &input(with(p.clone(), json!({"type": "string"}))),
        &input(with(p, json!({"type": "integer"}))),
        &[&format!(
            "breaking input-type-changed tool `t`: `p`: type changed from string to integer | {r}/$defs/D/type | {r}/$defs/D/type"
        )],
    );
    let p = json!({"anyOf": [{"$ref": "#/$defs/D"}, {"type": "null"}]});
    expect(
        &input(with(p.clone(), json!({"type": "string"}))),
        &input(with(p, json!({"type": "integer"}))),
        &[&format!(
            "possibly-breaking input-type-changed tool `t`: `p(anyOf 1)`: type changed from string to integer | {r}/$defs/D/type | {r}/$defs/D/type"
        )],
    );
    // Equal `$dynamicRef` below an unchanged property: that property is unchanged.
    expect(
        &input(
            json!({"type": "object", "propertyNames": {"maxLength": 5}, "properties": {"p": {"$dynamicRef": "#node"}, "q": {"type": "string"}}}),
        ),
        &input(
            json!({"type": "object", "propertyNames": {"maxLength": 5}, "properties": {"p": {"$dynamicRef": "#node"}, "q": {"type": "integer"}}}),
        ),
        &[&format!(
            "breaking input-type-changed tool `t`: `q`: type changed from string to integer | {r}/properties/q/type | {r}/properties/q/type"
        )],
    );
    let remote = json!({"$ref": "https://a.example/s.json"});
    expect(
        &input(json!({"type": "object", "properties": {"p": remote}})),
        &input(
            json!({"type": "object", "properties": {"p": remote}, "$defs": {"S": {"allOf": [{"$id": "https://a.example/s.json", "type": "string"}]}}}),
        ),
        &[&format!(
            "possibly-breaking input-ref-unresolved tool `t`: `p`: `$ref` `https://a.example/s.json` → `https://a.example/s.json` is not followed (not a local JSON pointer); compatibility is not decided | {r}/properties/p/$ref | {r}/properties/p/$ref"
        )],
    );
}

/// Whether an embedded `$id` claims a remote reference is looked for 256 levels deep;
/// a resource deeper than that may claim it, so the equal reference is undecided.
#[test]
fn remote_references_in_very_deep_resources() {
    let r = "/tools/0/inputSchema";
    // The leaf of `$defs/deep` sits at depth 2 + `levels` below the resource root.
    let schema = |levels: usize, q: &str| {
        let mut deep = json!(1);
        for i in 0..levels {
            // Objects and arrays both count.
            deep = if i % 2 == 0 {
                json!({ "a": deep })
            } else {
                json!([deep])
            };
        }
        json!({"type": "object",
               "properties": {"p": {"$ref": "https://a.example/s.json"}, "q": {"type": q}},
               "$defs": {"deep": deep}})
    };
    let q = format!(
        "breaking input-type-changed tool `t`: `q`: type changed from string to integer | {r}/properties/q/type | {r}/properties/q/type"
    );
    expect(
        &input(schema(254, "string")),
        &input(schema(254, "integer")),
        &[&q],
    );
    expect(
        &input(schema(255, "string")),
        &input(schema(255, "integer")),
        &[
            &format!(
                "possibly-breaking input-ref-unresolved tool `t`: `p`: `$ref` `https://a.example/s.json` → `https://a.example/s.json` is not followed (not a local JSON pointer); compatibility is not decided | {r}/properties/p/$ref | {r}/properties/p/$ref"
            ),
            &q,
        ],
    );
}

/// A dynamic reference that itself changed is a changed keyword (not "the schema
/// around it changed").
#[test]
fn changed_dynamic_references() {
    for k in ["$dynamicRef", "$recursiveRef"] {
        let want = format!(
            "possibly-breaking input-keyword-changed tool `t`: `p`: keyword `{k}` changed; its effect is not modelled, compatibility is not decided | {{P}}/{k} | {{P}}/{k}"
        );
        inp(json!({ k: "#a" }), json!({ k: "#b" }), &[&want]);
    }
}
