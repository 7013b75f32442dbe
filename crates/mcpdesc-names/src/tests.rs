//! Hand-written expectations, derived from the rules in the crate docs (hashes were
//! computed separately with `sha256sum` / Python `hashlib`, not by this code).

// A failed unwrap is a failed test, which is what we want here.
#![allow(clippy::unwrap_used)]

use super::*;
use proptest::prelude::*;
use serde_json::json;

fn n(raw: &str) -> String {
    normalize(raw, &NameOptions::default())
}

#[test]
fn github_style_operation_ids() {
    assert_eq!(n("repos/get-content"), "repos_get_content");
    assert_eq!(
        n("actions/list-workflow-runs-for-repo"),
        "actions_list_workflow_runs_for_repo"
    );
    assert_eq!(
        n("apps/create-installation-access-token"),
        "apps_create_installation_access_token"
    );
}

#[test]
fn case_styles_and_separators() {
    assert_eq!(n("getPetById"), "get_pet_by_id");
    assert_eq!(n("GET /pets/{petId}"), "get_pets_pet_id");
    assert_eq!(n("/users/{id}"), "users_id");
    assert_eq!(n("HTTPServer"), "http_server");
    assert_eq!(n("getHTTPResponse"), "get_http_response");
    assert_eq!(n("v2.users.list"), "v2_users_list");
    assert_eq!(n("v2Users"), "v2_users");
    assert_eq!(n("sha256Sum"), "sha256_sum");
    assert_eq!(n("HTTP2Server"), "http2_server");
    assert_eq!(n("getIDs"), "get_ids");
    assert_eq!(n("listAPIsByURLs"), "list_apis_by_urls");
    assert_eq!(n("get_user"), "get_user");
    assert_eq!(n("Get User  (beta)"), "get_user_beta");
    assert_eq!(n("a--b..c//d  e"), "a_b_c_d_e");
    assert_eq!(n("SCREAMING_SNAKE"), "screaming_snake");
}

#[test]
fn leading_and_trailing_junk() {
    assert_eq!(n("__x__"), "x");
    assert_eq!(n("123abc"), "n_123abc");
    assert_eq!(n("_1st"), "n_1st");
    assert_eq!(n("  -pets-  "), "pets");
}

#[test]
fn non_ascii() {
    assert_eq!(n("Ünïcødé"), "unicode");
    assert_eq!(n("Straße"), "strasse");
    assert_eq!(n("ÆON"), "aeon");
    assert_eq!(n("Æbleskiver"), "aebleskiver");
    assert_eq!(n("cafe\u{301}"), "cafe"); // decomposed é
    assert_eq!(n("naïve—test"), "naive_test"); // em dash separates
    assert_eq!(n("Łódź"), "lodz");
    assert_eq!(n("țară"), "tara");
    assert_eq!(n("🚀 launch-rocket"), "launch_rocket");
    assert_eq!(n("get😀user"), "get_user");
    assert_eq!(n("Привет world"), "world");
}

#[test]
fn nothing_left_falls_back_to_a_hash_of_the_raw_name() {
    assert_eq!(n("😀"), "tool_f0443a");
    assert_eq!(n(""), "tool_e3b0c4");
    assert_eq!(n("___"), format!("tool_{}", hash_hex("___", 6)));
    assert_ne!(n("😀"), n("😃"));
}

#[test]
fn shortening_keeps_head_and_tail_at_word_boundaries() {
    let raw: Vec<String> = (0..29).map(|i| format!("word{i:02}")).collect();
    let raw = raw.join("-");
    assert_eq!(raw.len(), 202);
    let got = n(&raw);
    assert_eq!(
        got,
        "word00_word01_word02_word03_word04_2185c7_word26_word27_word28"
    );
    assert!(got.len() <= 64);

    // One 200-letter word: cut inside the word, both ends kept.
    assert_eq!(
        n(&"a".repeat(200)),
        format!("{}_c2a908_{}", "a".repeat(38), "a".repeat(18))
    );

    assert_eq!(
        n("actions_list_self_hosted_runner_groups_for_repository_in_an_enterprise_org"),
        "actions_list_self_hosted_runner_groups_55aa5f_an_enterprise_org"
    );
    // Exactly at the limit: untouched.
    let sixty_four = format!("a{}", "_b".repeat(31)) + "c";
    assert_eq!(sixty_four.len(), 64);
    assert_eq!(n(&sixty_four), sixty_four);
}

fn long_name(middle: &str) -> String {
    format!(
        "repos-create-or-update-environment-secret-{middle}-variant-with-many-extra-words-for-the-authenticated-user"
    )
}

#[test]
fn long_names_differing_in_the_middle_stay_distinct() {
    let a = n(&long_name("alpha"));
    let b = n(&long_name("omega"));
    assert_eq!(
        a,
        "repos_create_or_update_environment_9acd53_the_authenticated_user"
    );
    assert_eq!(
        b,
        "repos_create_or_update_environment_da200f_the_authenticated_user"
    );
    let names = assign_names(
        &[
            (long_name("alpha"), "POST /a"),
            (long_name("omega"), "POST /b"),
        ],
        &NameOptions::default(),
    )
    .unwrap();
    assert_eq!(names, [a, b]);
}

#[test]
fn prefix_is_prepended_and_counted() {
    let gh = NameOptions::new(64, "gh_").unwrap();
    assert_eq!(normalize("getPetById", &gh), "gh_get_pet_by_id");
    assert_eq!(normalize("gh_get_pet_by_id", &gh), "gh_get_pet_by_id");
    assert_eq!(normalize("123", &gh), "gh_n_123");
    let long = normalize(&long_name("alpha"), &gh);
    assert!(
        long.starts_with("gh_repos_create_or_update_") && long.len() <= 64,
        "{long}"
    );

    assert!(matches!(
        NameOptions::new(64, "GH-"),
        Err(NameError::InvalidPrefix { suggestion, .. }) if suggestion == "gh_"
    ));
    assert!(NameOptions::new(64, "_x").is_err());
    assert!(NameOptions::new(64, "mcp__server__").is_ok());
    assert!(matches!(
        NameOptions::new(30, "abcdefghijk_"),
        Err(NameError::LimitTooSmall { .. })
    ));
    assert!(NameOptions::new(20, "").is_ok());
}

#[test]
fn small_limits_still_hold() {
    let o = NameOptions::new(20, "").unwrap();
    for raw in [long_name("x"), "a".repeat(100), "x_".repeat(40)] {
        let got = normalize(&raw, &o);
        assert!(is_host_safe(&got, 20), "{got}");
    }
    // A contested name at the minimum budget: stem of 13 plus `_<hash6>`.
    let names = assign_names(
        &[
            (long_name("x"), "k1"),
            (long_name("x").to_uppercase(), "k2"),
        ],
        &o,
    )
    .unwrap();
    assert!(names.iter().all(|s| is_host_safe(s, 20)), "{names:?}");
    assert_ne!(names[0], names[1]);
}

#[test]
fn collisions_get_key_hash_suffixes() {
    let names = assign_names(
        &[
            ("getUser", "GET /user"),
            ("get-user", "GET /users/{id}"),
            ("listPets", "GET /pets"),
        ],
        &NameOptions::default(),
    )
    .unwrap();
    assert_eq!(names, ["get_user_5184b9", "get_user_e87098", "list_pets"]);
}

#[test]
fn a_raw_name_that_already_is_the_candidate_keeps_it() {
    let names = assign_names(
        &[("getUser", "k2"), ("get_user", "k1")],
        &NameOptions::default(),
    )
    .unwrap();
    assert_eq!(names, ["get_user_015f7e", "get_user"]);
}

#[test]
fn reserved_names_are_avoided() {
    let mut a = NameAllocator::new(NameOptions::default());
    a.reserve("get_user");
    a.request("getUser", "k1");
    let got = a.assign().unwrap();
    assert_eq!(got.get("getUser", "k1"), Some("get_user_6ab9f1"));
    assert_eq!(
        got.get_request(&NameRequest::new("getUser", "k1"))
            .map(|a| a.derivation),
        Some(Derivation::Disambiguated { salt: 0 })
    );
}

#[test]
fn suffixed_names_that_collide_again_are_rehashed_with_a_salt() {
    // `get_user_6ab9f1` is somebody's own name, so `getUser`/k1 cannot have it.
    let names = assign_names(
        &[
            ("getUser", "k1"),
            ("get-user", "k2"),
            ("get_user_6ab9f1", "other"),
        ],
        &NameOptions::default(),
    )
    .unwrap();
    assert_eq!(
        suffix_hash_input(&NameRequest::new("getUser", "k1"), 1),
        "k1\u{0}getUser\u{0}1"
    );
    assert_eq!(
        names,
        ["get_user_50a837", "get_user_015f7e", "get_user_6ab9f1"]
    );

    // Equal keys cannot be separated by the key alone: both go to salt 1.
    let names = assign_names(
        &[("a-b", "same"), ("a_b!", "same")],
        &NameOptions::default(),
    )
    .unwrap();
    assert_eq!(names, ["a_b_24151d", "a_b_678f1d"]);
}

#[test]
fn long_collisions_are_reshortened_to_fit_the_suffix() {
    let raw = long_name("alpha");
    let names = assign_names(
        &[(raw.clone(), "POST /a"), (raw.to_uppercase(), "POST /b")],
        &NameOptions::default(),
    )
    .unwrap();
    assert_eq!(
        names,
        [
            "repos_create_or_update_9acd53_for_the_authenticated_user_2b9647",
            "repos_create_or_update_9acd53_for_the_authenticated_user_80f66c"
        ]
    );
}

#[test]
fn equal_requests_are_one_entity() {
    let names = assign_names(
        &[("Get User", "k"), ("Get User", "k")],
        &NameOptions::default(),
    )
    .unwrap();
    assert_eq!(names, ["get_user", "get_user"]);
}

#[test]
fn problems_are_explained() {
    let o = NameOptions::default();
    assert_eq!(name_problems("get_user", &o), []);
    assert_eq!(name_problems("", &o), [NameProblem::Empty]);
    assert_eq!(name_problems("getUser", &o), [NameProblem::Uppercase]);
    assert_eq!(
        name_problems("1x", &o),
        [NameProblem::LeadingNonLetter('1')]
    );
    assert_eq!(
        name_problems("_get-user.v2", &o),
        [
            NameProblem::LeadingNonLetter('_'),
            NameProblem::InvalidCharacters(vec!['-', '.'])
        ]
    );
    assert_eq!(
        name_problems(&"a".repeat(65), &o),
        [NameProblem::TooLong { len: 65, max: 64 }]
    );
    let gh = NameOptions::new(64, "gh_").unwrap();
    assert_eq!(
        name_problems("get_user", &gh),
        [NameProblem::MissingPrefix {
            prefix: "gh_".into()
        }]
    );

    let d = name_diagnostics("Get-User", &o, "/tools/3/name");
    assert_eq!(d.len(), 1);
    assert_eq!(
        (d[0].code.as_str(), d[0].pointer.as_str()),
        ("name-not-host-safe", "/tools/3/name")
    );
    let codes: Vec<String> = name_diagnostics(&"A".repeat(70), &o, "")
        .into_iter()
        .map(|d| d.code)
        .collect();
    assert_eq!(codes, ["name-not-host-safe", "name-too-long"]);
}

#[test]
fn document_check_reports_pointers_and_overlapping_duplicates() {
    let doc = json!({
        "protocolVersions": ["2025-06-18", "2025-11-25"],
        "tools": [
            {"name": "ok_tool"},
            {"name": "getUser"},
            {"name": "ok_tool", "protocolVersions": ["2025-11-25"]},
            {"name": "variant", "protocolVersions": ["2025-06-18"]},
            {"name": "variant", "protocolVersions": ["2025-11-25"]},
            {"title": "no name"}
        ]
    });
    let d = check_tool_names(&doc, &NameOptions::default());
    let got: Vec<(&str, &str)> = d
        .iter()
        .map(|d| (d.code.as_str(), d.pointer.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("name-not-host-safe", "/tools/1/name"),
            ("name-duplicate", "/tools/2/name"),
            ("name-missing", "/tools/5")
        ]
    );
}

#[test]
fn document_fix_renames_variants_alike_and_avoids_kept_names() {
    let mut doc = json!({
        "protocolVersions": ["2025-06-18", "2025-11-25"],
        "tools": [
            {"name": "get_user", "inputSchema": {"type": "object"}},
            {"name": "Get-User", "protocolVersions": ["2025-06-18"], "inputSchema": {"type": "object"}},
            {"name": "Get-User", "protocolVersions": ["2025-11-25"], "inputSchema": {"type": "object"}},
            {"name": "list.pets", "inputSchema": {"type": "object"}}
        ]
    });
    let renames = fix_tool_names(&mut doc, &NameOptions::default()).unwrap();
    let new_get = format!("get_user_{}", hash_hex("Get-User", 6));
    assert_eq!(
        renames,
        [
            Rename {
                indices: vec![1, 2],
                from: "Get-User".into(),
                to: new_get.clone()
            },
            Rename {
                indices: vec![3],
                from: "list.pets".into(),
                to: "list_pets".into()
            },
        ]
    );
    assert_eq!(
        doc["tools"][0],
        json!({"name": "get_user", "inputSchema": {"type": "object"}})
    );
    for i in [1, 2] {
        assert_eq!(doc["tools"][i]["name"], json!(new_get));
        let keys: Vec<&String> = doc["tools"][i].as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "name",
                ORIGINAL_NAME_EXTENSION,
                "protocolVersions",
                "inputSchema"
            ]
        );
        assert_eq!(doc["tools"][i][ORIGINAL_NAME_EXTENSION], json!("Get-User"));
    }
    assert_eq!(check_tool_names(&doc, &NameOptions::default()), []);
    // Fixing again changes nothing.
    let before = doc.clone();
    assert_eq!(
        fix_tool_names(&mut doc, &NameOptions::default()).unwrap(),
        []
    );
    assert_eq!(doc, before);
}

#[test]
fn document_fix_refuses_overlapping_duplicates() {
    let mut doc = json!({"tools": [{"name": "Bad"}, {"name": "Bad"}]});
    let before = doc.clone();
    let err = fix_tool_names(&mut doc, &NameOptions::default()).unwrap_err();
    assert_eq!(err[0].code, "name-duplicate");
    assert_eq!(doc, before);
}

#[test]
fn document_fix_keeps_an_older_original_name() {
    let mut doc = json!({"tools": [{"name": "a_rather_long_name_here", "x-mcpdesc-original-name": "aRatherLongNameHere"}]});
    let o = NameOptions::new(20, "").unwrap();
    fix_tool_names(&mut doc, &o).unwrap();
    assert_eq!(
        doc["tools"][0][ORIGINAL_NAME_EXTENSION],
        json!("aRatherLongNameHere")
    );
    assert!(is_host_safe(doc["tools"][0]["name"].as_str().unwrap(), 20));
}

/// Latin-1 letters fold to their base letter (`ñ`, `ù ú û ü`), `þ` to `th`, and the
/// Romanian comma-below `ș` to `s` (crate docs, scheme step 1.1) — each a whole word,
/// never a separator.
#[test]
fn latin_letters_fold_to_ascii_inside_the_word() {
    assert_eq!(n("año"), "ano");
    assert_eq!(n("über"), "uber");
    assert_eq!(n("dùúûü"), "duuuu");
    assert_eq!(n("þing"), "thing");
    assert_eq!(n("așa"), "asa");
}

/// Step 2: a raw name carrying the prefix is normalized without it, also when it is
/// contested and gets a key-hash suffix (h6("GET /b") = db789e, from `sha256sum`).
#[test]
fn a_contested_prefixed_name_is_suffixed_once_prefixed() {
    let opts = NameOptions::new(64, "acme_").unwrap();
    let mut a = NameAllocator::new(opts);
    a.request("acme_get_user", "GET /a");
    a.request("acme_getUser", "GET /b");
    let got = a.assign().unwrap();
    assert_eq!(got.get("acme_get_user", "GET /a"), Some("acme_get_user"));
    assert_eq!(
        got.get("acme_getUser", "GET /b"),
        Some("acme_get_user_db789e")
    );
}

#[test]
fn an_assignment_is_empty_only_without_requests() {
    let empty = NameAllocator::new(NameOptions::default()).assign().unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.len(), 0);
    let mut a = NameAllocator::new(NameOptions::default());
    a.request("listPets", "GET /pets");
    let one = a.assign().unwrap();
    assert!(!one.is_empty());
    assert_eq!(one.len(), 1);
}

/// The diagnostics' messages give every reason, in the order first character, case,
/// characters, then length on its own diagnostic.
#[test]
fn diagnostics_say_why_a_name_is_not_host_safe() {
    let opts = NameOptions::default();
    let d = name_diagnostics("9Get-Pet", &opts, "/tools/0/name");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, "name-not-host-safe");
    assert_eq!(
        d[0].message,
        "tool name `9Get-Pet` is not host-safe: it starts with `9`, not an ASCII letter; \
         it has uppercase letters; it contains `-` (host-safe names match ^[a-z][a-z0-9_]*$)"
    );
    assert_eq!(d[0].pointer, "/tools/0/name");
    let long = "a".repeat(65);
    let d = name_diagnostics(&long, &opts, "/tools/3/name");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, "name-too-long");
    assert_eq!(
        d[0].message,
        format!("tool name `{long}`: it has 65 characters, over the limit of 64")
    );
    let prefixed = NameOptions::new(64, "gh_").unwrap();
    let d = name_diagnostics("list_pets", &prefixed, "/tools/1/name");
    assert_eq!(
        d[0].message,
        "tool name `list_pets`: it does not start with the prefix `gh_`"
    );
}

fn options() -> impl Strategy<Value = NameOptions> {
    (
        20usize..80,
        prop_oneof![Just(""), Just("gh_"), Just("mcp__s__")],
    )
        .prop_filter_map("budget", |(max, p)| NameOptions::new(max + p.len(), p).ok())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn normalize_is_host_safe_and_idempotent(raw in "\\PC{0,120}", opts in options()) {
        let once = normalize(&raw, &opts);
        prop_assert!(is_host_safe(&once, opts.max_len()), "{once:?}");
        prop_assert!(once.starts_with(opts.prefix()));
        prop_assert!(!once[opts.prefix().len()..].contains("__"));
        prop_assert_eq!(normalize(&once, &opts), once.clone());
    }

    #[test]
    fn ascii_soup_is_host_safe(raw in "[a-zA-Z0-9_ ./{}-]{0,200}") {
        let got = normalize(&raw, &NameOptions::default());
        prop_assert!(is_host_safe(&got, 64), "{got:?}");
    }
}
