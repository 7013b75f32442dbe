//! Generators of hostile inputs (kept small on disk: they are generated, not committed).

/// `[[[[…` nested `depth` levels, unterminated.
pub fn deep_json(depth: usize) -> Vec<u8> {
    let mut v = br#"{"mcpdesc": "0.8.0", "x-deep": "#.to_vec();
    v.extend(std::iter::repeat_n(b'[', depth));
    v
}

/// YAML flow sequences nested `depth` levels.
pub fn deep_yaml_flow(depth: usize) -> Vec<u8> {
    let mut v = b"mcpdesc: 0.8.0\nx-deep: ".to_vec();
    v.extend(std::iter::repeat_n(b'[', depth));
    v.extend(std::iter::repeat_n(b']', depth));
    v.push(b'\n');
    v
}

/// Block sequences nested `depth` levels on one line: `- - - - x`.
pub fn deep_yaml_block(depth: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(depth * 2 + 2);
    for _ in 0..depth {
        v.extend_from_slice(b"- ");
    }
    v.extend_from_slice(b"x\n");
    v
}

/// The classic alias bomb: 9 levels of 9 aliases each (~387M nodes if expanded).
pub fn billion_laughs() -> Vec<u8> {
    let mut s = String::from("mcpdesc: 0.8.0\na0: &a0 [\"lol\"]\n");
    for i in 1..10 {
        let refs: Vec<String> = (0..9).map(|_| format!("*a{}", i - 1)).collect();
        s.push_str(&format!("a{i}: &a{i} [{}]\n", refs.join(", ")));
    }
    s.into_bytes()
}

/// A document with one string of `len` bytes.
pub fn huge_string_json(len: usize) -> Vec<u8> {
    let mut v = br#"{"mcpdesc": "0.8.0", "instructions": ""#.to_vec();
    v.extend(std::iter::repeat_n(b'a', len));
    v.extend_from_slice(br#""}"#);
    v
}

/// A document with one array of `n` zeros.
pub fn wide_array_json(n: usize) -> Vec<u8> {
    let mut v = br#"{"mcpdesc": "0.8.0", "x-wide": ["#.to_vec();
    for i in 0..n {
        if i > 0 {
            v.push(b',');
        }
        v.push(b'0');
    }
    v.extend_from_slice(b"]}");
    v
}

/// Deterministic pseudo-random bytes (xorshift), starting with `{` so the JSON
/// decoder is chosen by sniffing too.
pub fn garbage(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut v = vec![b'{'];
    while v.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.push((x >> 24) as u8);
    }
    v
}
