//! Choosing what is served: toolsets, name globs and read-only.
//!
//! - A **toolset** is a name a tool belongs to: the tool's `x-mcpdesc-toolsets` (an array
//!   of names; see [`TOOLSETS_EXTENSION`]) when it has one, else its `tags` (the OpenAPI
//!   importer carries each operation's OpenAPI tags there). A tool may be in several.
//! - `--tools GLOB,...` keeps tools whose name matches a glob, `--exclude-tools GLOB,...`
//!   drops them; exclusion wins.
//! - `--read-only` keeps tools whose effective `readOnlyHint` is true (MCP's default for
//!   a missing hint is `false`).
//!
//! Selection reads source declarations, never a revision's projection: a tool is in or
//! out of the served set the same way at every revision (its name does not change, and
//! the annotations of a declaration are one value even where an old revision's wire
//! format cannot carry them).

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
pub use mcpdesc_core::toolsets::{
    TOOLSETS_EXTENSION, Toolset, is_read_only, toolsets, toolsets_of,
};
use serde_json::Value;
use std::collections::BTreeSet;

/// What a [`Selection`] could not accept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelectionError {
    /// A glob that does not parse (`--tools`, `--exclude-tools`).
    BadGlob { glob: String, why: String },
    /// A toolset name no tool of the description is in; `known` lists the toolsets.
    UnknownToolset { name: String, known: Vec<String> },
    /// A name given as the empty string.
    Empty { what: &'static str },
}

impl std::fmt::Display for SelectionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SelectionError::BadGlob { glob, why } => write!(f, "`{glob}` is not a glob: {why}"),
            SelectionError::UnknownToolset { name, known } => {
                write!(f, "no tool is in toolset `{name}`")?;
                if known.is_empty() {
                    write!(f, " (the description's tools have no tags or toolsets)")
                } else {
                    write!(f, "; the toolsets are: {}", known.join(", "))
                }
            }
            SelectionError::Empty { what } => write!(f, "an empty {what}"),
        }
    }
}

impl std::error::Error for SelectionError {}

/// Which tools are served. The default keeps every tool.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    toolsets: Option<BTreeSet<String>>,
    tools: Option<Globs>,
    exclude: Option<Globs>,
    read_only: bool,
}

#[derive(Debug, Clone)]
struct Globs {
    patterns: Vec<String>,
    set: GlobSet,
}

impl Globs {
    fn new(patterns: &[String]) -> Result<Option<Globs>, SelectionError> {
        if patterns.is_empty() {
            return Ok(None);
        }
        let mut b = GlobSetBuilder::new();
        for p in patterns {
            if p.is_empty() {
                return Err(SelectionError::Empty { what: "tool glob" });
            }
            b.add(glob(p)?);
        }
        let set = b.build().map_err(|e| SelectionError::BadGlob {
            glob: patterns.join(","),
            why: e.kind().to_string(),
        })?;
        Ok(Some(Globs {
            patterns: patterns.to_vec(),
            set,
        }))
    }
}

/// A glob over tool names: `*`, `?`, `[...]` and `{a,b}`; names have no path separator,
/// so `*` matches any run of characters; case-sensitive, as tool names are.
fn glob(p: &str) -> Result<Glob, SelectionError> {
    GlobBuilder::new(p)
        .literal_separator(false)
        .backslash_escape(true)
        .build()
        .map_err(|e| SelectionError::BadGlob {
            glob: p.to_string(),
            why: e.kind().to_string(),
        })
}

impl Selection {
    /// `--toolsets` (empty: every tool), `--tools`, `--exclude-tools`, `--read-only`.
    pub fn new(
        toolsets: &[String],
        tools: &[String],
        exclude: &[String],
        read_only: bool,
    ) -> Result<Selection, SelectionError> {
        if toolsets.iter().any(String::is_empty) {
            return Err(SelectionError::Empty {
                what: "toolset name",
            });
        }
        Ok(Selection {
            toolsets: (!toolsets.is_empty()).then(|| toolsets.iter().cloned().collect()),
            tools: Globs::new(tools)?,
            exclude: Globs::new(exclude)?,
            read_only,
        })
    }

    /// Whether the selection keeps every tool.
    pub fn keeps_everything(&self) -> bool {
        self.toolsets.is_none() && self.tools.is_none() && self.exclude.is_none() && !self.read_only
    }

    /// Whether the tool declaration `decl` named `name` is served.
    pub fn keeps(&self, name: &str, decl: &Value) -> bool {
        if self.exclude.as_ref().is_some_and(|g| g.set.is_match(name)) {
            return false;
        }
        if self.read_only && !is_read_only(decl) {
            return false;
        }
        let by_name = self.tools.as_ref().map(|g| g.set.is_match(name));
        let by_toolset = self
            .toolsets
            .as_ref()
            .map(|want| toolsets_of(decl).iter().any(|t| want.contains(*t)));
        // `--tools` and `--toolsets` each add tools: a tool named by either is served.
        match (by_name, by_toolset) {
            (None, None) => true,
            (Some(a), None) | (None, Some(a)) => a,
            (Some(a), Some(b)) => a || b,
        }
    }

    /// The same selection, restricted to one toolset (`/mcp/x/{toolset}`): the toolset
    /// replaces `--toolsets` and `--tools`; exclusions and read-only still apply.
    pub fn only_toolset(&self, name: &str) -> Selection {
        Selection {
            toolsets: Some(BTreeSet::from([name.to_string()])),
            tools: None,
            exclude: self.exclude.clone(),
            read_only: self.read_only,
        }
    }

    /// The same selection, read-only (`/mcp/readonly`).
    pub fn read_only(&self) -> Selection {
        Selection {
            read_only: true,
            ..self.clone()
        }
    }

    /// Checks that every `--toolsets` name is a toolset of the document.
    pub fn check_toolsets(&self, doc: &Value) -> Result<(), SelectionError> {
        let Some(want) = &self.toolsets else {
            return Ok(());
        };
        let known = toolsets(doc);
        for name in want {
            if !known.contains_key(name) {
                return Err(SelectionError::UnknownToolset {
                    name: name.clone(),
                    known: known.keys().cloned().collect(),
                });
            }
        }
        Ok(())
    }

    /// A one-line statement of the selection for the start-up log.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(t) = &self.toolsets {
            parts.push(format!(
                "toolsets {}",
                t.iter().cloned().collect::<Vec<_>>().join(",")
            ));
        }
        if let Some(g) = &self.tools {
            parts.push(format!("tools {}", g.patterns.join(",")));
        }
        if let Some(g) = &self.exclude {
            parts.push(format!("excluding {}", g.patterns.join(",")));
        }
        if self.read_only {
            parts.push("read-only".into());
        }
        if parts.is_empty() {
            "every tool".into()
        } else {
            parts.join("; ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    fn doc() -> Value {
        json!({"tags": [{"name": "issues", "description": "Issue tracking"}, {"name": "repos"}],
            "tools": [
            {"name": "issues_list", "tags": ["issues"], "annotations": {"readOnlyHint": true}},
            {"name": "issues_create", "tags": ["issues"], "annotations": {"readOnlyHint": false}},
            {"name": "repos_get", "tags": ["repos", "issues"], "annotations": {"readOnlyHint": true}},
            {"name": "repos_delete", "tags": ["repos"]},
            {"name": "meta_root", "x-mcpdesc-toolsets": ["meta"], "tags": ["repos"],
             "annotations": {"readOnlyHint": true}},
            {"name": "untagged"}
        ]})
    }

    fn kept(sel: &Selection) -> Vec<&'static str> {
        let d = doc();
        let names = [
            "issues_list",
            "issues_create",
            "repos_get",
            "repos_delete",
            "meta_root",
            "untagged",
        ];
        names
            .into_iter()
            .zip(d["tools"].as_array().expect("tools"))
            .filter(|(n, t)| sel.keeps(n, t))
            .map(|(n, _)| n)
            .collect()
    }

    #[test]
    fn toolsets_are_tags_unless_declared() {
        let t = toolsets(&doc());
        assert_eq!(t.keys().collect::<Vec<_>>(), ["issues", "meta", "repos"]);
        assert_eq!(t["issues"].tools, [0, 1, 2]);
        assert_eq!(
            t["repos"].tools,
            [2, 3],
            "meta_root's extension replaces its tags"
        );
        assert_eq!(t["issues"].description.as_deref(), Some("Issue tracking"));
        assert_eq!(t["meta"].description, None);
    }

    #[test]
    fn selections_compose_and_exclusion_wins() {
        let all = Selection::default();
        assert!(all.keeps_everything());
        assert_eq!(kept(&all).len(), 6);
        let ts = Selection::new(&s(&["repos"]), &[], &[], false).expect("ok");
        assert_eq!(kept(&ts), ["repos_get", "repos_delete"]);
        let ro = Selection::new(&[], &[], &[], true).expect("ok");
        assert_eq!(kept(&ro), ["issues_list", "repos_get", "meta_root"]);
        let globs = Selection::new(&[], &s(&["issues_*", "untagged"]), &s(&["*_create"]), false)
            .expect("ok");
        assert_eq!(kept(&globs), ["issues_list", "untagged"]);
        let both = Selection::new(&s(&["meta"]), &s(&["repos_d*"]), &[], false).expect("ok");
        assert_eq!(
            kept(&both),
            ["repos_delete", "meta_root"],
            "--tools adds to --toolsets"
        );
        let path = both.only_toolset("issues").read_only();
        assert_eq!(kept(&path), ["issues_list", "repos_get"]);
        let excl = Selection::new(&s(&["issues"]), &[], &s(&["repos_*"]), false).expect("ok");
        assert_eq!(kept(&excl), ["issues_list", "issues_create"]);
        assert_eq!(excl.describe(), "toolsets issues; excluding repos_*");
    }

    #[test]
    fn bad_input_is_named() {
        let e = Selection::new(&[], &s(&["a[b"]), &[], false).expect_err("bad glob");
        assert!(e.to_string().starts_with("`a[b` is not a glob"), "{e}");
        assert!(Selection::new(&s(&[""]), &[], &[], false).is_err());
        let e = Selection::new(&s(&["nope"]), &[], &[], false)
            .expect("parses")
            .check_toolsets(&doc())
            .expect_err("unknown");
        assert_eq!(
            e.to_string(),
            "no tool is in toolset `nope`; the toolsets are: issues, meta, repos"
        );
    }
}
