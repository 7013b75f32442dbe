use crate::table::{NameChars, StrictLimits};
use crate::{HostRule, ListSize, Size, estimate_tokens, host, host_ids};
use serde_json::json;

#[test]
fn token_estimates_by_the_documented_charges() {
    // Digits: 35 twentieths per started group of three.
    assert_eq!(estimate_tokens("123"), 2); // 35
    assert_eq!(estimate_tokens("1234"), 4); // 70
    assert_eq!(estimate_tokens("123456"), 4); // 70
    // A lower-case word: 20, plus 5 per letter past the sixth.
    assert_eq!(estimate_tokens("abcdef"), 1); // 20
    assert_eq!(estimate_tokens("abcdefghijk"), 3); // 20 + 25 = 45
    // Capitals: `ABCdef` is `AB` + `Cdef`; `ABC` alone one word.
    assert_eq!(estimate_tokens("ABCdef"), 2); // 40
    assert_eq!(estimate_tokens("ABCDEFGHIJK"), 3); // 45
    assert_eq!(estimate_tokens("aBcD"), 3); // a, Bc, D: 60
    // A capital run inside a longer run: `abcdefgh` 30, `XY` 20, `Zab` 20.
    assert_eq!(estimate_tokens("abcdefghXYZab"), 4);
    // Whitespace and `_` are free; other ASCII 6; non-ASCII 20 per character.
    assert_eq!(estimate_tokens(" _\t_\n"), 0);
    assert_eq!(estimate_tokens("a,b"), 3); // 46
    assert_eq!(estimate_tokens("{}"), 1); // 12
    assert_eq!(estimate_tokens("éü"), 2); // 40
    assert_eq!(estimate_tokens("日本"), 2); // 40: one charge per character, not per byte
    assert_eq!(estimate_tokens("é1"), 3); // 20 + 35
}

#[test]
fn sizes_print_and_count_bytes() {
    let v = json!({"a": "é"});
    assert_eq!(Size::bytes_of(&v), 10);
    // `{ " " : " " }` 7 × 6, `a` 20, `é` 20: 82 twentieths.
    assert_eq!(
        Size::of(&v),
        Size {
            bytes: 10,
            tokens: 5
        }
    );
    assert_eq!(
        Size {
            bytes: 10,
            tokens: 2
        }
        .to_string(),
        "10 bytes, ~2 tokens"
    );
    // An empty list and a one-item list, summed.
    let mut l = ListSize::new("tools");
    assert_eq!(l.size(), Size::of(&json!({"tools": []})));
    let item = json!({"name": "x"});
    assert_eq!(l.push(&item.to_string()), Size::of(&item));
    assert_eq!(l.size(), Size::of(&json!({"tools": [item]})));
}

#[test]
fn host_table_lookups() {
    assert_eq!(
        host_ids(),
        [
            "claude-directory",
            "claude-code",
            "chatgpt",
            "openai-strict",
            "gemini-cli",
            "cursor",
            "kiro",
            "vscode"
        ]
    );
    assert!(host("nope").is_none());
    let h = |id: &str| host(id).expect("a host");
    // Room left for the tool name: the limit minus a prefix that counts.
    assert_eq!(h("claude-code").name_budget(Some("gh")), Some(55));
    assert_eq!(h("claude-code").name_budget(None), Some(64));
    assert_eq!(h("chatgpt").name_budget(Some("gh")), Some(64));
    assert_eq!(h("gemini-cli").name_budget(Some("gh")), None);
    assert_eq!(h("cursor").shown_name(Some("gh"), "t"), "gh_t");
    assert_eq!(h("chatgpt").shown_name(Some("gh"), "t"), "t");
    assert_eq!(h("openai-strict").max_tools(), Some(128));
    assert_eq!(h("cursor").max_tools(), Some(40));
    assert_eq!(h("chatgpt").max_tools(), None);
    assert_eq!(h("claude-code").list_token_budget(), Some(20_000));
    assert_eq!(h("cursor").list_token_budget(), None);
    assert!(h("gemini-cli").has(HostRule::NoRef) && !h("kiro").has(HostRule::NoRef));
    assert!(h("claude-code").has(HostRule::NoTopLevelUnion));
    assert!(!h("gemini-cli").has(HostRule::NoTopLevelUnion));
    assert!(h("openai-strict").strict().is_some() && h("chatgpt").strict().is_none());
    assert_eq!(
        h("gemini-cli").replaced_chars(),
        Some(NameChars::AlnumUnderscoreHyphenDotColon)
    );
    assert_eq!(h("kiro").replaced_chars(), None);
    assert_eq!(h("kiro").name_chars(), Some(NameChars::AlnumUnderscore));
    assert!(h("gemini-cli").truncation().is_some() && h("kiro").truncation().is_none());
    assert!(
        h("chatgpt")
            .source_of(|r| matches!(r, HostRule::RequiresAnnotations(_)))
            .ends_with(", read 2026-12-01, confirmed")
    );
    assert_eq!(h("chatgpt").source_of(|r| matches!(r, HostRule::NoRef)), "");
    let _: Option<StrictLimits> = h("openai-strict").strict();
}

#[test]
fn name_character_sets() {
    use NameChars::*;
    for c in [
        AlnumUnderscoreHyphen,
        AlnumUnderscore,
        AlnumUnderscoreHyphenDotColon,
    ] {
        assert!(!c.accepts(""), "{c:?}");
        assert!(c.accepts("get_User9"), "{c:?}");
        assert!(!c.accepts("a b"), "{c:?}");
        assert!(!c.accepts("é"), "{c:?}");
    }
    assert!(AlnumUnderscoreHyphen.accepts("a-b") && !AlnumUnderscoreHyphen.accepts("a.b"));
    assert!(!AlnumUnderscore.accepts("a-b"));
    assert!(AlnumUnderscoreHyphenDotColon.accepts("a-b.c:d"));
    assert!(!AlnumUnderscoreHyphenDotColon.accepts("a/b"));
    assert_eq!(AlnumUnderscore.replace("a-b.c"), "a_b_c");
    assert_eq!(AlnumUnderscore.pattern(), "^[a-zA-Z0-9_]+$");
}
