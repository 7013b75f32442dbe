//! Findings as data: what changed, where in each document, for which revisions, how
//! much it matters; and the report that groups them and suggests a version bump.

use crate::rules::{Class, RuleId};
use mcpdesc_core::{DeclKind, RevisionSet};
use serde::Serialize;
use std::fmt;

/// A place in one of the two ORIGINAL documents (not in a projected view).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Location {
    /// RFC 6901 JSON pointer into the document.
    pub pointer: String,
    /// 1-based line, when the document came from text.
    pub line: Option<u32>,
    /// 1-based column (characters), when the document came from text.
    pub column: Option<u32>,
}

/// The declaration a finding is about, by identity (never by position).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Declaration {
    pub kind: DeclKind,
    /// The identity (tool/prompt name, resource `uri`, template `uriTemplate`,
    /// `TYPE URL|COMMAND` for transports); `None` for the Capabilities Object.
    pub id: Option<String>,
}

impl Declaration {
    /// The kebab-case kind used in the JSON format.
    pub fn kind_str(&self) -> &'static str {
        kind_str(self.kind)
    }
}

/// Kebab-case name of a declaration kind in reports.
pub fn kind_str(kind: DeclKind) -> &'static str {
    match kind {
        DeclKind::Transport => "transport",
        DeclKind::Capabilities => "capabilities",
        DeclKind::Tool => "tool",
        DeclKind::Resource => "resource",
        DeclKind::ResourceTemplate => "resource-template",
        DeclKind::Prompt => "prompt",
        DeclKind::Elicitation => "elicitation",
    }
}

impl fmt::Display for Declaration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.id {
            Some(id) => write!(f, "{} `{id}`", self.kind.noun()),
            None => f.write_str(self.kind.noun()),
        }
    }
}

/// One piece of a message: our own words, or text quoted from a document (names,
/// values, pointers), which renderers must treat as untrusted.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Part {
    Text(String),
    Quoted(String),
}

/// A one-line message whose quoted parts come from the documents. Its plain form
/// (`Display`) puts quoted parts in backticks.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Message(pub Vec<Part>);

/// Longest quoted text kept in a message (values, names); longer ones are cut with `…`.
pub const MAX_QUOTED_CHARS: usize = 120;

impl Message {
    pub fn new() -> Self {
        Message(Vec::new())
    }
    /// Appends our own words.
    pub fn text(mut self, s: impl Into<String>) -> Self {
        let s = s.into();
        if let Some(Part::Text(t)) = self.0.last_mut() {
            t.push_str(&s);
        } else {
            self.0.push(Part::Text(s));
        }
        self
    }
    /// Appends text quoted from a document (cut to [`MAX_QUOTED_CHARS`]).
    pub fn quote(mut self, s: impl AsRef<str>) -> Self {
        let s = s.as_ref();
        let q = if s.chars().count() > MAX_QUOTED_CHARS {
            let mut t: String = s.chars().take(MAX_QUOTED_CHARS).collect();
            t.push('…');
            t
        } else {
            s.to_string()
        };
        self.0.push(Part::Quoted(q));
        self
    }
    /// Appends a JSON value from a document, as compact JSON.
    pub fn value(self, v: &serde_json::Value) -> Self {
        self.quote(v.to_string())
    }
    pub fn parts(&self) -> &[Part] {
        &self.0
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.0 {
            match p {
                Part::Text(t) => f.write_str(t)?,
                Part::Quoted(q) => write!(f, "`{q}`")?,
            }
        }
        Ok(())
    }
}

/// One change between OLD and NEW.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub rule: RuleId,
    /// The rule's class, except inside compositions: a breaking change found in an
    /// `anyOf`/`allOf` alternative is possibly breaking (another alternative can mask
    /// it), and in a `oneOf` alternative a non-breaking one is too (exclusivity is not
    /// monotone).
    pub class: Class,
    /// The protocol revisions whose clients see this change.
    pub revisions: RevisionSet,
    /// `None` for document-level findings (revisions, info, root security…).
    pub declaration: Option<Declaration>,
    pub old: Option<Location>,
    pub new: Option<Location>,
    pub message: Message,
}

/// Which document a location is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Old,
    New,
}

impl Finding {
    /// Where the change is best seen: NEW's location, unless NEW only points at the
    /// container of what OLD had (a removal), then OLD's.
    pub fn primary(&self) -> Option<(Side, &Location)> {
        match (&self.old, &self.new) {
            (Some(o), Some(n))
                if o.pointer.starts_with(&format!("{}/", n.pointer))
                    || (n.pointer.is_empty() && !o.pointer.is_empty()) =>
            {
                Some((Side::Old, o))
            }
            (_, Some(n)) => Some((Side::New, n)),
            (Some(o), None) => Some((Side::Old, o)),
            (None, None) => None,
        }
    }

    /// The other location, when there is one.
    pub fn secondary(&self) -> Option<(Side, &Location)> {
        match self.primary()? {
            (Side::New, _) => self.old.as_ref().map(|o| (Side::Old, o)),
            (Side::Old, _) => self.new.as_ref().map(|n| (Side::New, n)),
        }
    }
}

/// What version bump the changes call for (semver).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Semver {
    /// Breaking changes.
    Major,
    /// Possibly breaking changes only: major unless a human reviewed them.
    MajorUnlessReviewed,
    /// Additions and relaxations.
    Minor,
    /// Documentation and metadata only.
    Patch,
    /// Nothing changed.
    None,
}

impl Semver {
    pub const fn as_str(self) -> &'static str {
        match self {
            Semver::Major => "major",
            Semver::MajorUnlessReviewed => "major-unless-reviewed",
            Semver::Minor => "minor",
            Semver::Patch => "patch",
            Semver::None => "none",
        }
    }
    /// One sentence for the text and markdown reports.
    pub const fn explain(self) -> &'static str {
        match self {
            Semver::Major => "major (breaking changes)",
            Semver::MajorUnlessReviewed => {
                "major unless reviewed (changes whose compatibility could not be decided)"
            }
            Semver::Minor => "minor (additions and relaxations only)",
            Semver::Patch => "patch (documentation and metadata only)",
            Semver::None => "none (no change)",
        }
    }
}

/// When `mcpdesc diff` exits 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FailOn {
    /// A breaking or possibly-breaking finding (a change not proven compatible).
    #[default]
    Breaking,
    /// Any finding at all, info included.
    Any,
    /// Never (report only).
    None,
}

/// Counts per class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub breaking: usize,
    #[serde(rename = "possibly-breaking")]
    pub possibly_breaking: usize,
    #[serde(rename = "non-breaking")]
    pub non_breaking: usize,
    pub info: usize,
}

impl Summary {
    pub fn get(&self, class: Class) -> usize {
        match class {
            Class::Breaking => self.breaking,
            Class::PossiblyBreaking => self.possibly_breaking,
            Class::NonBreaking => self.non_breaking,
            Class::Info => self.info,
        }
    }
    pub fn total(&self) -> usize {
        self.breaking + self.possibly_breaking + self.non_breaking + self.info
    }
}

/// The result of a diff: findings grouped across revisions, in a deterministic order
/// (document-level first, then declarations by kind and identity, each in the order
/// the comparison walked it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The revisions whose Effective Protocol Views were compared (declared by both).
    pub revisions: RevisionSet,
    pub findings: Vec<Finding>,
}

impl Report {
    pub fn summary(&self) -> Summary {
        let mut s = Summary::default();
        for f in &self.findings {
            match f.class {
                Class::Breaking => s.breaking += 1,
                Class::PossiblyBreaking => s.possibly_breaking += 1,
                Class::NonBreaking => s.non_breaking += 1,
                Class::Info => s.info += 1,
            }
        }
        s
    }

    /// The suggested version bump.
    pub fn semver(&self) -> Semver {
        let s = self.summary();
        if s.breaking > 0 {
            Semver::Major
        } else if s.possibly_breaking > 0 {
            Semver::MajorUnlessReviewed
        } else if s.non_breaking > 0 {
            Semver::Minor
        } else if s.info > 0 {
            Semver::Patch
        } else {
            Semver::None
        }
    }

    /// Whether the report fails a CI gate set to `fail_on`.
    pub fn fails(&self, fail_on: FailOn) -> bool {
        match fail_on {
            FailOn::Breaking => self
                .findings
                .iter()
                .any(|f| matches!(f.class, Class::Breaking | Class::PossiblyBreaking)),
            FailOn::Any => !self.findings.is_empty(),
            FailOn::None => false,
        }
    }

    /// Whether OLD and NEW are equivalent for every compared revision.
    pub fn is_empty(&self) -> bool {
        self.findings.is_empty()
    }
}
