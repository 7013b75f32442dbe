//! Typed flag values shared by several subcommands, parsed once by clap (ripgrep's
//! parse-once, type-once), so a bad value is a usage error (exit 2) before anything is
//! read:
//! - `--protocol-version V`: [`mcpdesc_core::ProtocolRevision`] through its own `FromStr`;
//! - `--protocol-versions all|V,V`: [`RevisionSetArg`], a [`RevisionSet`] whose default
//!   is shown in `--help` (from the revision table, never written here);
//! - `-o OUTPUT`: [`Output`], the one output rule of every subcommand that writes a
//!   description or a tools/list result;
//! - `--header NAME:VALUE`, `--env KEY=VALUE`: [`HeaderArg`], [`EnvArg`];
//! - `--timeout SECS`: [`Seconds`], a positive finite number of seconds as a `Duration`;
//! - `--format text|json` of the reporting subcommands: [`OutputFormat`];
//! - `--validate-output off|warn|strict`: [`ValidateOutputArg`];
//! - `--code-memory SIZE` and the other sizes of code mode: [`ByteSize`].

use mcpdesc_core::{Format, RevisionSet};
use mcpdesc_rest::ValidateOutput;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

/// `--timeout SECS`: a positive, finite number of seconds (fractions allowed) that a
/// `Duration` can hold. `Display` writes the seconds back (`30`, `0.5`), so clap shows
/// defaults as they are typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seconds(pub Duration);

impl FromStr for Seconds {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let why = "must be a positive number of seconds";
        let secs: f64 = s.trim().parse().map_err(|_| why.to_string())?;
        if !(secs.is_finite() && secs > 0.0) {
            return Err(why.into());
        }
        match Duration::try_from_secs_f64(secs) {
            Ok(d) if !d.is_zero() => Ok(Seconds(d)),
            Ok(_) => Err(format!("{why} (at least a nanosecond)")),
            Err(_) => Err(format!("{why} (at most {} s)", Duration::MAX.as_secs())),
        }
    }
}

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.as_secs_f64())
    }
}

/// A size in bytes: a whole number with an optional binary unit (`B`, `KiB`, `MiB`,
/// `GiB`; case-insensitive, `K`/`M`/`G` accepted), greater than zero. `Display` writes the
/// largest unit that divides it (`64MiB`), so clap shows defaults as they are typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteSize(pub usize);

const UNITS: [(&str, usize); 4] = [
    ("GiB", 1 << 30),
    ("MiB", 1 << 20),
    ("KiB", 1 << 10),
    ("B", 1),
];

impl FromStr for ByteSize {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let why = "must be a size in bytes such as 65536, 512KiB or 64MiB";
        let s = s.trim();
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        let (number, unit) = s.split_at(digits);
        let n: usize = number.parse().map_err(|_| why.to_string())?;
        let unit = unit.trim().to_ascii_lowercase();
        let scale = match unit.as_str() {
            "" | "b" => 1,
            "k" | "kib" => 1 << 10,
            "m" | "mib" => 1 << 20,
            "g" | "gib" => 1 << 30,
            _ => return Err(why.into()),
        };
        match n.checked_mul(scale) {
            Some(0) => Err(format!("{why} (greater than zero)")),
            Some(b) => Ok(ByteSize(b)),
            None => Err(format!("{why} (too large)")),
        }
    }
}

impl fmt::Display for ByteSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (unit, scale) = UNITS
            .iter()
            .find(|(_, scale)| self.0 % scale == 0)
            .copied()
            .unwrap_or(("B", 1));
        write!(f, "{}{unit}", self.0 / scale)
    }
}

/// `--format text|json` of `validate` and `lint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Human-readable diagnostics on stderr, one summary line per file on stdout.
    Text,
    /// One JSON object per file per line on stdout.
    Json,
}

/// `--validate-output MODE`: [`ValidateOutput`], whose spellings and order are the
/// gateway's own ([`ValidateOutput::ALL`], [`ValidateOutput::name`]); this only
/// teaches clap to list them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValidateOutputArg(pub ValidateOutput);

impl clap::ValueEnum for ValidateOutputArg {
    fn value_variants<'a>() -> &'a [Self] {
        const ALL: [ValidateOutputArg; 3] = [
            ValidateOutputArg(ValidateOutput::ALL[0]),
            ValidateOutputArg(ValidateOutput::ALL[1]),
            ValidateOutputArg(ValidateOutput::ALL[2]),
        ];
        &ALL
    }
    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.0.name()))
    }
}

/// `--protocol-versions all|V,V`: a [`RevisionSet`] parsed by its `FromStr`. It exists
/// only so that clap can show a default: `Display` writes what `FromStr` reads back
/// (`all`, or the revisions comma-separated), where `RevisionSet`'s own `Display` is the
/// bracketed list of diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RevisionSetArg(pub RevisionSet);

impl FromStr for RevisionSetArg {
    type Err = mcpdesc_core::revision::ParseRevisionSetError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse().map(RevisionSetArg)
    }
}

impl fmt::Display for RevisionSetArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == RevisionSet::ALL {
            return f.write_str("all");
        }
        f.write_str(&self.0.to_strings().join(","))
    }
}

/// `-o OUTPUT`, the one output rule: `-` is standard output; a file's format follows its
/// extension, `.json` → JSON, `.yaml`/`.yml` → YAML (any case). Any other file name is a
/// usage error, so a file's name always says what is in it. What standard output gets
/// is the subcommand's to say ([`Output::format`]): the input's format when the input is
/// an MCP Description, else JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    Stdout,
    File { path: PathBuf, format: Format },
}

impl Output {
    /// The one rule, for a value of `-o`.
    pub fn new(path: PathBuf) -> Result<Self, String> {
        if path.as_os_str() == "-" {
            return Ok(Output::Stdout);
        }
        match Format::from_path(&path.to_string_lossy()) {
            Some(format) => Ok(Output::File { path, format }),
            None => Err(
                "name the file .json, .yaml or .yml (the extension gives the format), or `-` for standard output"
                    .to_string(),
            ),
        }
    }

    /// The file to write; `None` for standard output.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Output::Stdout => None,
            Output::File { path, .. } => Some(path),
        }
    }

    /// The format to write: the file's, or `stdout` for standard output.
    pub fn format(&self, stdout: Format) -> Format {
        match self {
            Output::Stdout => stdout,
            Output::File { format, .. } => *format,
        }
    }
}

impl clap::builder::ValueParserFactory for Output {
    type Parser = clap::builder::TryMapValueParser<
        clap::builder::PathBufValueParser,
        fn(PathBuf) -> Result<Output, String>,
    >;
    fn value_parser() -> Self::Parser {
        use clap::builder::TypedValueParser as _;
        clap::builder::PathBufValueParser::new().try_map(Output::new)
    }
}

/// `--header NAME:VALUE`. A VALUE written `${VAR}` is read from the environment
/// variable VAR when the command runs, so secrets stay out of argv and shell history.
/// The name must be an HTTP field-name token (RFC 9110 §5.1); the value may not hold
/// CR, LF, NUL or other control characters (RFC 9110 §5.5). `Debug` never shows the
/// value.
#[derive(Clone, PartialEq, Eq)]
pub struct HeaderArg {
    pub name: String,
    value: HeaderValue,
}

#[derive(Clone, PartialEq, Eq)]
enum HeaderValue {
    Literal(String),
    Env(String),
}

impl HeaderArg {
    /// The header's value: the literal, or the environment variable's current value.
    pub fn value(&self) -> Result<String, String> {
        match &self.value {
            HeaderValue::Literal(v) => Ok(v.clone()),
            HeaderValue::Env(var) => {
                let v = std::env::var(var).map_err(|_| {
                    format!(
                        "--header {}: environment variable `{var}` is not set",
                        self.name
                    )
                })?;
                // Whitespace around a field value is not part of it (RFC 9110 §5.5): the
                // same trim as a literal value gets.
                let v = v.trim_matches([' ', '\t']);
                mcpdesc_core::http::check_field_value(v)
                    .map_err(|e| format!("--header {}: `{var}` {e}", self.name))?;
                Ok(v.to_string())
            }
        }
    }
}

impl fmt::Debug for HeaderArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = match &self.value {
            HeaderValue::Literal(_) => "<redacted>".to_string(),
            HeaderValue::Env(var) => format!("${{{var}}}"),
        };
        write!(f, "HeaderArg({}: {shown})", self.name)
    }
}

impl FromStr for HeaderArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (name, value) = s
            .split_once(':')
            .ok_or_else(|| "expected NAME:VALUE (VALUE may be ${ENV_VAR})".to_string())?;
        let name = name.trim();
        if !mcpdesc_core::http::is_token(name) {
            return Err(format!(
                "`{name}` is not an HTTP header name (RFC 9110 token)"
            ));
        }
        let value = value.trim_matches([' ', '\t']);
        let value = match value.strip_prefix("${").and_then(|v| v.strip_suffix('}')) {
            Some(var) if is_env_name(var) => HeaderValue::Env(var.to_string()),
            Some(var) => return Err(format!("`{var}` is not an environment variable name")),
            None => {
                mcpdesc_core::http::check_field_value(value)
                    .map_err(|e| format!("header value {e}"))?;
                HeaderValue::Literal(value.to_string())
            }
        };
        Ok(HeaderArg {
            name: name.to_string(),
            value,
        })
    }
}

/// `--env KEY=VALUE` for a child process. `Debug` never shows the value.
#[derive(Clone, PartialEq, Eq)]
pub struct EnvArg {
    pub key: String,
    pub value: String,
}

impl fmt::Debug for EnvArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EnvArg({}=<redacted>)", self.key)
    }
}

impl FromStr for EnvArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (key, value) = s
            .split_once('=')
            .ok_or_else(|| "expected KEY=VALUE".to_string())?;
        if key.is_empty() || key.contains('\0') {
            return Err(format!("`{key}` is not an environment variable name"));
        }
        if value.contains('\0') {
            return Err("an environment value cannot hold NUL".into());
        }
        Ok(EnvArg {
            key: key.to_string(),
            value: value.to_string(),
        })
    }
}

/// A portable environment variable name (POSIX: letters, digits, `_`, not a digit first).
pub(crate) fn is_env_name(s: &str) -> bool {
    s.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpdesc_core::ProtocolRevision;

    #[test]
    fn revision_sets_show_what_they_parse() {
        for set in [
            RevisionSet::ALL,
            RevisionSet::import_default(),
            RevisionSet::single(ProtocolRevision::LATEST),
        ] {
            let shown = RevisionSetArg(set).to_string();
            assert_eq!(shown.parse::<RevisionSetArg>(), Ok(RevisionSetArg(set)));
        }
        assert_eq!(RevisionSetArg(RevisionSet::ALL).to_string(), "all");
        assert_eq!(
            RevisionSetArg(RevisionSet::single(ProtocolRevision::V2025_06_18)).to_string(),
            "2025-06-18"
        );
        assert!("".parse::<RevisionSetArg>().is_err());
    }

    #[test]
    fn seconds() {
        let ok = |s: &str| s.parse::<Seconds>().map(|x| x.0);
        assert_eq!(ok("30"), Ok(Duration::from_secs(30)));
        assert_eq!(ok("0.25"), Ok(Duration::from_millis(250)));
        assert_eq!(ok("1e3"), Ok(Duration::from_secs(1000)));
        for bad in [
            "0", "-1", "0.0", "NaN", "inf", "-inf", "", "ten", "1e300", "1e-10",
        ] {
            assert!(bad.parse::<Seconds>().is_err(), "{bad}");
        }
        for shown in ["30", "0.5", "2.25"] {
            assert_eq!(shown.parse::<Seconds>().expect(shown).to_string(), shown);
        }
    }

    #[test]
    fn byte_sizes() {
        let ok = |s: &str| s.parse::<ByteSize>().map(|x| x.0);
        assert_eq!(ok("65536"), Ok(65536));
        assert_eq!(ok("64MiB"), Ok(64 * 1024 * 1024));
        assert_eq!(ok("512 kib"), Ok(512 * 1024));
        assert_eq!(ok("1G"), Ok(1 << 30));
        assert_eq!(ok("3B"), Ok(3));
        for bad in [
            "",
            "0",
            "0MiB",
            "-1",
            "1.5MiB",
            "1TB",
            "MiB",
            "99999999999999999999GiB",
        ] {
            assert!(bad.parse::<ByteSize>().is_err(), "{bad}");
        }
        for shown in ["64MiB", "1KiB", "1000B", "2GiB"] {
            assert_eq!(shown.parse::<ByteSize>().expect(shown).to_string(), shown);
        }
    }

    #[test]
    fn validate_output_modes_are_the_gateways() {
        use clap::ValueEnum as _;
        let names: Vec<String> = ValidateOutputArg::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value())
            .map(|p| p.get_name().to_string())
            .collect();
        assert_eq!(names, ["off", "warn", "strict"]);
        for v in ValidateOutputArg::value_variants() {
            assert_eq!(ValidateOutputArg::from_str(v.0.name(), false), Ok(*v));
        }
    }

    #[test]
    fn output_rule() {
        let file = |p: &str| Output::new(PathBuf::from(p));
        assert_eq!(file("-"), Ok(Output::Stdout));
        for (name, format) in [
            ("a.json", Format::Json),
            ("dir/a.mcpdesc.JSON", Format::Json),
            ("a.yaml", Format::Yaml),
            ("a.Yml", Format::Yaml),
        ] {
            let out = file(name).expect(name);
            assert_eq!(out.format(Format::Json), format, "{name}");
            assert_eq!(out.format(Format::Yaml), format, "{name}");
            assert_eq!(out.path(), Some(Path::new(name)));
        }
        for name in ["a.txt", "a", "dir/", "a.json.bak", ".yaml.x"] {
            assert!(file(name).is_err(), "{name}");
        }
        assert_eq!(Output::Stdout.format(Format::Yaml), Format::Yaml);
        assert_eq!(Output::Stdout.path(), None);
    }

    #[test]
    fn headers() {
        let h: HeaderArg = "Authorization: Bearer x".parse().expect("parses");
        assert_eq!(h.name, "Authorization");
        assert_eq!(h.value().as_deref(), Ok("Bearer x"));
        assert!(!format!("{h:?}").contains("Bearer"));
        let h: HeaderArg = "X-Token:${MCPDESC_TEST_UNSET_VAR_1}"
            .parse()
            .expect("parses");
        assert!(h.value().is_err());
        assert!("X-A".parse::<HeaderArg>().is_err());
        assert!("X A:b".parse::<HeaderArg>().is_err());
        assert!("X-A:b\r\nX-B: c".parse::<HeaderArg>().is_err());
        assert!("X-A:${1BAD}".parse::<HeaderArg>().is_err());
        assert_eq!(
            "X-Empty:"
                .parse::<HeaderArg>()
                .expect("empty")
                .value()
                .as_deref(),
            Ok("")
        );
    }

    #[test]
    fn env_entries() {
        let e: EnvArg = "API_KEY=a=b".parse().expect("parses");
        assert_eq!((e.key.as_str(), e.value.as_str()), ("API_KEY", "a=b"));
        assert!(!format!("{e:?}").contains("a=b"));
        assert!("=x".parse::<EnvArg>().is_err());
        assert!("NOVALUE".parse::<EnvArg>().is_err());
    }
}

/// `--host H`: a profile of the host table (`mcpdesc_hosts::HOSTS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostArg(pub &'static mcpdesc_hosts::HostProfile);

impl FromStr for HostArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        mcpdesc_hosts::host(s).map(HostArg).ok_or_else(|| {
            format!(
                "unknown host `{s}`; known hosts: {}",
                mcpdesc_hosts::host_ids().join(", ")
            )
        })
    }
}

/// `--allow RULE` / `--deny RULE`: a rule id of `mcpdesc_lint::rules::RULES`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleArg(pub String);

impl FromStr for RuleArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if mcpdesc_lint::is_rule(s) {
            Ok(RuleArg(s.to_string()))
        } else {
            Err(format!(
                "unknown rule `{s}`; rules: {}",
                mcpdesc_lint::rules::RULES
                    .iter()
                    .map(|r| r.id)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }
    }
}

/// `--discovery` (`serve`, `lint`): how clients find the served tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiscoveryArg {
    /// Every served tool in tools/list.
    Direct,
    /// tools/list is search_tools, describe_tools and call_tool (plus pinned tools).
    Search,
    /// tools/list is search_api (TypeScript declarations) and execute (a script in a
    /// sandbox that calls the tools).
    Code,
}

/// `--search` (`serve --discovery search`): how the facade ranks tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SearchArg {
    /// Lexical-first: BM25F's hits in BM25F's order, then the embedding model's ranking
    /// of the tools BM25F has no evidence for (never worse than lexical at any rank).
    Hybrid,
    /// BM25F alone.
    Lexical,
}
