//! RFC 6570 URI templates (levels 1–4): a parser and a matcher that decides whether a
//! concrete URI is a possible expansion of a template (§10.4.3, §10.4.6).
//!
//! Matching is a search over every way each expression could have expanded, so it
//! needs no reverse-inferred variable values. An expression expands either to nothing
//! (every variable undefined) or to its operator's prefix followed by items joined with
//! the operator's separator; each item is built from the characters that operator may
//! emit (unreserved, plus reserved for `+` and `#`, plus percent-encoded triplets).

use std::fmt;

/// An RFC 6570 expression operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operator {
    /// `{var}`
    Simple,
    /// `{+var}`
    Reserved,
    /// `{#var}`
    Fragment,
    /// `{.var}`
    Label,
    /// `{/var}`
    Path,
    /// `{;var}`
    PathParam,
    /// `{?var}`
    Query,
    /// `{&var}`
    QueryContinuation,
}

impl Operator {
    fn from_char(c: char) -> Option<Self> {
        Some(match c {
            '+' => Operator::Reserved,
            '#' => Operator::Fragment,
            '.' => Operator::Label,
            '/' => Operator::Path,
            ';' => Operator::PathParam,
            '?' => Operator::Query,
            '&' => Operator::QueryContinuation,
            _ => return None,
        })
    }
    /// The string emitted before the first defined item (RFC 6570 Appendix A `first`).
    fn first(self) -> &'static str {
        match self {
            Operator::Simple | Operator::Reserved => "",
            Operator::Fragment => "#",
            Operator::Label => ".",
            Operator::Path => "/",
            Operator::PathParam => ";",
            Operator::Query => "?",
            Operator::QueryContinuation => "&",
        }
    }
    /// The separator between items (`sep`).
    fn sep(self) -> char {
        match self {
            Operator::Simple | Operator::Reserved | Operator::Fragment => ',',
            Operator::Label => '.',
            Operator::Path => '/',
            Operator::PathParam => ';',
            Operator::Query | Operator::QueryContinuation => '&',
        }
    }
    /// Whether items are `name=value` pairs (`named`).
    fn named(self) -> bool {
        matches!(
            self,
            Operator::PathParam | Operator::Query | Operator::QueryContinuation
        )
    }
    /// Whether reserved characters pass through unencoded (`allow` = U+R).
    fn allows_reserved(self) -> bool {
        matches!(self, Operator::Reserved | Operator::Fragment)
    }
}

/// One variable of an expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarSpec {
    /// The variable name (operators and modifiers stripped, §10.4.6).
    pub name: String,
    /// `:n` prefix modifier.
    pub prefix: Option<usize>,
    /// `*` explode modifier.
    pub explode: bool,
}

/// A template part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Literal characters, copied into every expansion.
    Literal(String),
    /// A `{...}` expression.
    Expression {
        /// The expression's operator.
        op: Operator,
        /// Its comma-separated variables.
        vars: Vec<VarSpec>,
    },
}

/// A parsed URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    /// Literals and expressions in template order.
    pub parts: Vec<Part>,
}

/// Why a template does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    /// Character offset of the problem.
    pub offset: usize,
    /// What is wrong there.
    pub reason: &'static str,
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at character {}", self.reason, self.offset)
    }
}

fn is_literal_char(c: char) -> bool {
    // RFC 6570 §2.1: any Unicode character except CTL, SP, DQUOTE, "'", "%" (unless
    // pct-encoded, handled by the caller), "<", ">", "\", "^", "`", "{", "|", "}".
    !(c.is_control()
        || matches!(
            c,
            ' ' | '"' | '\'' | '%' | '<' | '>' | '\\' | '^' | '`' | '{' | '|' | '}'
        ))
}

fn is_hex(c: char) -> bool {
    c.is_ascii_hexdigit()
}

/// Parses an RFC 6570 template.
pub fn parse(template: &str) -> Result<UriTemplate, TemplateError> {
    let chars: Vec<char> = template.chars().collect();
    let mut parts = Vec::new();
    let mut lit = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '{' => {
                if !lit.is_empty() {
                    parts.push(Part::Literal(std::mem::take(&mut lit)));
                }
                let close = chars[i + 1..]
                    .iter()
                    .position(|&c| c == '}')
                    .map(|p| p + i + 1)
                    .ok_or(TemplateError {
                        offset: i,
                        reason: "unterminated expression",
                    })?;
                parts.push(parse_expression(&chars[i + 1..close], i + 1)?);
                i = close + 1;
            }
            '}' => {
                return Err(TemplateError {
                    offset: i,
                    reason: "unmatched `}`",
                });
            }
            '%' => {
                if i + 2 < chars.len() && is_hex(chars[i + 1]) && is_hex(chars[i + 2]) {
                    lit.extend(&chars[i..i + 3]);
                    i += 3;
                } else {
                    return Err(TemplateError {
                        offset: i,
                        reason: "`%` not followed by two hex digits",
                    });
                }
            }
            c if is_literal_char(c) => {
                lit.push(c);
                i += 1;
            }
            _ => {
                return Err(TemplateError {
                    offset: i,
                    reason: "character not allowed in a URI template literal",
                });
            }
        }
    }
    if !lit.is_empty() {
        parts.push(Part::Literal(lit));
    }
    Ok(UriTemplate { parts })
}

fn parse_expression(body: &[char], offset: usize) -> Result<Part, TemplateError> {
    let mut rest = body;
    let mut op = Operator::Simple;
    let mut at = offset;
    if let Some(&c) = rest.first() {
        if let Some(o) = Operator::from_char(c) {
            op = o;
            rest = &rest[1..];
            at += 1;
        } else if matches!(c, '=' | ',' | '!' | '@' | '|') {
            return Err(TemplateError {
                offset,
                reason: "reserved operator (not defined by RFC 6570)",
            });
        }
    }
    if rest.is_empty() {
        return Err(TemplateError {
            offset,
            reason: "empty expression",
        });
    }
    let mut vars = Vec::new();
    for spec in rest.split(|&c| c == ',') {
        vars.push(parse_varspec(spec, at)?);
        at += spec.len() + 1;
    }
    Ok(Part::Expression { op, vars })
}

fn parse_varspec(spec: &[char], offset: usize) -> Result<VarSpec, TemplateError> {
    let (name_chars, modifier): (&[char], &[char]) =
        match spec.iter().position(|&c| c == ':' || c == '*') {
            Some(p) => (&spec[..p], &spec[p..]),
            None => (spec, &[]),
        };
    // varname = varchar *( ["."] varchar ); varchar = ALPHA / DIGIT / "_" / pct-encoded
    let err = |reason| TemplateError { offset, reason };
    if name_chars.is_empty() {
        return Err(err("empty variable name"));
    }
    let mut i = 0;
    let mut prev_dot = true; // a name must not start with '.'
    while i < name_chars.len() {
        let c = name_chars[i];
        if c.is_ascii_alphanumeric() || c == '_' {
            prev_dot = false;
            i += 1;
        } else if c == '%'
            && i + 2 < name_chars.len()
            && is_hex(name_chars[i + 1])
            && is_hex(name_chars[i + 2])
        {
            prev_dot = false;
            i += 3;
        } else if c == '.' && !prev_dot {
            prev_dot = true;
            i += 1;
        } else {
            return Err(err("invalid character in variable name"));
        }
    }
    if prev_dot {
        return Err(err("variable name ends with `.`"));
    }
    let name: String = name_chars.iter().collect();
    let (prefix, explode) = match modifier {
        [] => (None, false),
        ['*'] => (None, true),
        [':', digits @ ..] => {
            let s: String = digits.iter().collect();
            let ok = !s.is_empty()
                && s.len() <= 4
                && !s.starts_with('0')
                && s.chars().all(|c| c.is_ascii_digit());
            if !ok {
                return Err(err("prefix modifier must be 1–9999"));
            }
            (
                Some(
                    s.parse::<usize>()
                        .map_err(|_| err("prefix modifier must be 1–9999"))?,
                ),
                false,
            )
        }
        _ => return Err(err("invalid variable modifier")),
    };
    Ok(VarSpec {
        name,
        prefix,
        explode,
    })
}

impl UriTemplate {
    /// Every variable name, in template order, without duplicates.
    pub fn variables(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for p in &self.parts {
            if let Part::Expression { vars, .. } = p {
                for v in vars {
                    if !out.contains(&v.name.as_str()) {
                        out.push(&v.name);
                    }
                }
            }
        }
        out
    }

    /// Whether `uri` is a possible expansion of this template.
    pub fn matches(&self, uri: &str) -> bool {
        let input: Vec<char> = uri.chars().collect();
        // Set of reachable positions after each part (a bitset over input offsets).
        let mut reach = vec![false; input.len() + 1];
        reach[0] = true;
        for part in &self.parts {
            let mut next = vec![false; input.len() + 1];
            let mut any = false;
            for (pos, &r) in reach.iter().enumerate() {
                if !r {
                    continue;
                }
                match part {
                    Part::Literal(l) => {
                        if let Some(end) = match_literal(l, &input, pos) {
                            next[end] = true;
                            any = true;
                        }
                    }
                    Part::Expression { op, vars } => {
                        for end in expression_ends(*op, vars, &input, pos) {
                            next[end] = true;
                            any = true;
                        }
                    }
                }
            }
            if !any {
                return false;
            }
            reach = next;
        }
        reach[input.len()]
    }
}

/// A template literal matches itself; a character that cannot appear in a URI matches
/// its UTF-8 percent-encoding (RFC 6570 §3.1).
fn match_literal(lit: &str, input: &[char], pos: usize) -> Option<usize> {
    let mut i = pos;
    for c in lit.chars() {
        if input.get(i) == Some(&c) {
            i += 1;
            continue;
        }
        if is_unreserved(c) || is_reserved(c) {
            return None;
        }
        let mut buf = [0u8; 4];
        for b in c.encode_utf8(&mut buf).bytes() {
            let want = format!("%{b:02X}");
            let got: String = input.get(i..i + 3)?.iter().collect();
            if !got.eq_ignore_ascii_case(&want) {
                return None;
            }
            i += 3;
        }
    }
    Some(i)
}

fn is_unreserved(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')
}

fn is_reserved(c: char) -> bool {
    matches!(
        c,
        ':' | '/'
            | '?'
            | '#'
            | '['
            | ']'
            | '@'
            | '!'
            | '$'
            | '&'
            | '\''
            | '('
            | ')'
            | '*'
            | '+'
            | ','
            | ';'
            | '='
    )
}

/// Length in input characters of one value character at `i` (a percent-encoded
/// triplet counts as one value character), or `None` when `input[i]` cannot occur in
/// a value expanded with this operator.
fn value_char(op: Operator, input: &[char], i: usize) -> Option<usize> {
    let c = *input.get(i)?;
    if c == '%' {
        let ok = input.get(i + 1).is_some_and(|c| is_hex(*c))
            && input.get(i + 2).is_some_and(|c| is_hex(*c));
        return ok.then_some(3);
    }
    if is_unreserved(c) || (op.allows_reserved() && is_reserved(c)) {
        return Some(1);
    }
    None
}

/// Every end offset an expression can reach from `pos`.
fn expression_ends(op: Operator, vars: &[VarSpec], input: &[char], pos: usize) -> Vec<usize> {
    // All variables undefined: the expression expands to nothing.
    let mut ends = vec![pos];
    let first = op.first();
    let mut start = pos;
    for c in first.chars() {
        if input.get(start) != Some(&c) {
            return ends;
        }
        start += 1;
    }
    let any_explode = vars.iter().any(|v| v.explode);
    let sep = op.sep();
    // Items: maximal runs of value characters (plus `,` for list values and `=` for
    // exploded pairs), split by `sep`. We enumerate end positions item by item.
    // A non-exploded list value joins its members with `,`, which is also the separator
    // of the comma operators, so only the other operators bound the item count.
    let max_items = if any_explode || sep == ',' {
        usize::MAX
    } else {
        vars.len()
    };
    let mut i = start;
    let mut items = 0usize;
    // Named operators: names must be declared variables in template order (or any key
    // when some variable explodes, since exploded pairs use their own keys).
    let mut next_var = 0usize;
    loop {
        // Parse one item starting at i.
        let item_start = i;
        let mut j = i;
        if op.named() {
            // name
            let mut name = String::new();
            while let Some(&c) = input.get(j) {
                if c == '=' || c == sep || (c == ',' && !any_explode) {
                    break;
                }
                if value_char(op, input, j).is_none() {
                    break;
                }
                name.push(c);
                j += 1;
            }
            if name.is_empty() {
                break;
            }
            if !any_explode {
                match vars[next_var..].iter().position(|v| v.name == name) {
                    Some(p) => next_var += p + 1,
                    None => break,
                }
            }
            if input.get(j) == Some(&'=') {
                j += 1;
            } else if op != Operator::PathParam {
                // `?` and `&` always write `=` (ifemp), `;` omits it for empty values.
                break;
            }
        }
        // Value characters; remember every end inside the item only at its maximal end,
        // since a separator or the next literal must follow.
        let mut item_ends = vec![j];
        while j < input.len() {
            let c = input[j];
            if c == sep {
                break;
            }
            let step = if c == ',' || (c == '=' && any_explode && !op.named()) {
                Some(1)
            } else {
                value_char(op, input, j)
            };
            let Some(step) = step else { break };
            j += step;
            item_ends.push(j);
        }
        items += 1;
        for &e in &item_ends {
            if e > item_start || !op.named() {
                ends.push(e);
            }
        }
        // Single-variable, prefix-limited, non-exploded: bound the value length.
        if let ([v], false) = (vars, op.named()) {
            if let (Some(n), false) = (v.prefix, v.explode) {
                let counted = count_value_chars(input, item_start, j);
                if counted > n {
                    ends.retain(|&e| e == pos || count_value_chars(input, start, e) <= n);
                }
            }
        }
        if items >= max_items || input.get(j) != Some(&sep) {
            break;
        }
        i = j + 1;
    }
    ends.sort_unstable();
    ends.dedup();
    ends
}

fn count_value_chars(input: &[char], from: usize, to: usize) -> usize {
    let mut i = from;
    let mut n = 0;
    while i < to {
        i += if input[i] == '%' { 3 } else { 1 };
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> UriTemplate {
        parse(s).expect("template parses")
    }

    #[test]
    fn parses_levels_and_modifiers() {
        let tpl = t("repo://{owner}/{repository}/issues/{issue}");
        assert_eq!(tpl.variables(), ["owner", "repository", "issue"]);
        let tpl = t("{+path}{?q,lang:2}{&x*}{#frag}{.ext}{/seg*}{;p}");
        assert_eq!(
            tpl.variables(),
            ["path", "q", "lang", "x", "frag", "ext", "seg", "p"]
        );
        assert_eq!(t("{owner,repository}").variables(), ["owner", "repository"]);
        assert_eq!(t("{id:3}").variables(), ["id"]);
        assert_eq!(t("{a.b%20c}").variables(), ["a.b%20c"]);
    }

    #[test]
    fn rejects_malformed_templates() {
        for bad in [
            "test://items/{id",
            "repo://{owner/{repository}/issues/{issue}",
            "x/}",
            "{}",
            "{=a}",
            "{a:0}",
            "{a:10000}",
            "{a*b}",
            "{.a.}",
            "a b",
            "{a,}",
            "100%",
        ] {
            assert!(parse(bad).is_err(), "{bad} must not parse");
        }
    }

    /// RFC 6570 §3.2 example expansions (variables: var="value", hello="Hello World!",
    /// path="/foo/bar", x="1024", y="768", empty="", list=(red,green,blue),
    /// keys=[(semi,";"),(dot,"."),(comma,",")]) — an oracle independent of this code.
    #[test]
    fn rfc6570_examples_match() {
        for (tpl, uri) in [
            ("{var}", "value"),
            ("{hello}", "Hello%20World%21"),
            ("{+hello}", "Hello%20World!"),
            ("{+path}/here", "/foo/bar/here"),
            ("{#path,x}/here", "#/foo/bar,1024/here"),
            ("{x,hello,y}", "1024,Hello%20World%21,768"),
            ("X{.var}", "X.value"),
            ("X{.empty}", "X."),
            ("{/var,x}/here", "/value/1024/here"),
            ("{/var:1,var}", "/v/value"),
            ("{;x,y}", ";x=1024;y=768"),
            ("{;x,y,empty}", ";x=1024;y=768;empty"),
            ("{?x,y}", "?x=1024&y=768"),
            ("{?x,y,empty}", "?x=1024&y=768&empty="),
            ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
            ("{var:3}", "val"),
            ("{+path:6}/here", "/foo/b/here"),
            ("{keys}", "semi,%3B,dot,.,comma,%2C"),
            ("{/list*}", "/red/green/blue"),
            ("{.list*}", ".red.green.blue"),
            ("{;list*}", ";list=red;list=green;list=blue"),
            ("{?list}", "?list=red,green,blue"),
            ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
            ("{#keys*}", "#semi=;,dot=.,comma=,"),
        ] {
            assert!(t(tpl).matches(uri), "{uri} must match {tpl}");
        }
        for (tpl, uri) in [
            ("{var}", "Hello World!"),
            ("{?x,y}", "?y=768&x=1024"),
            ("{var:3}", "value"),
            ("X{.var}", "Y.value"),
        ] {
            assert!(!t(tpl).matches(uri), "{uri} must not match {tpl}");
        }
    }

    #[test]
    fn matches_expansions() {
        let tpl = t("chess://games/{game_id}");
        assert!(tpl.matches("chess://games/example-1234"));
        assert!(!tpl.matches("chess://players/example-1234"));
        assert!(
            !tpl.matches("chess://games/a/b"),
            "simple expansion encodes `/`"
        );
        assert!(tpl.matches("chess://games/a%2Fb"));
        assert!(
            tpl.matches("chess://games/"),
            "an undefined or empty variable expands to nothing"
        );

        let tpl = t("file:///{+path}");
        assert!(tpl.matches("file:///src/main.rs"));

        let tpl = t("http://x/search{?q,lang}");
        assert!(tpl.matches("http://x/search?q=chess&lang=en"));
        assert!(tpl.matches("http://x/search?lang=en"));
        assert!(tpl.matches("http://x/search"));
        assert!(
            !tpl.matches("http://x/search?lang=en&q=chess"),
            "order follows the template"
        );
        assert!(!tpl.matches("http://x/search?other=1"));

        let tpl = t("http://x{/segs*}");
        assert!(tpl.matches("http://x/a/b/c"));
        let tpl = t("http://x{/a,b}");
        assert!(tpl.matches("http://x/1/2"));
        assert!(
            !tpl.matches("http://x/1/2/3"),
            "two variables give at most two segments"
        );

        let tpl = t("http://x/{id:3}");
        assert!(tpl.matches("http://x/abc"));
        assert!(!tpl.matches("http://x/abcd"));

        let tpl = t("http://x/{name}.json");
        assert!(tpl.matches("http://x/readme.json"));
        let tpl = t("x:{;p,q}");
        assert!(tpl.matches("x:;p=1;q"));
        let tpl = t("x:/a{#f}");
        assert!(tpl.matches("x:/a#sec/1"));
    }
}
