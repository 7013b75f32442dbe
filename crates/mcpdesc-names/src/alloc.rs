//! Unique names for a whole document, independent of input order.

use crate::normalize::{
    HASH_LEN, NameError, NameOptions, hash_hex, normalize_base, prefixed, shorten, unprefixed,
};
use std::collections::{BTreeMap, BTreeSet};

/// Upper bound on re-hashing rounds. Each round re-hashes only names that still
/// collide; with 24-bit hashes a second round is already rare.
pub const MAX_ROUNDS: usize = 64;

/// One thing to name: the raw name (operationId, method + path, an existing tool
/// name) and a disambiguation key that identifies it in the source (for OpenAPI
/// `"GET /repos/{owner}/{repo}"`). Equal requests are one entity and get one name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NameRequest {
    pub raw: String,
    pub key: String,
}

impl NameRequest {
    pub fn new(raw: impl Into<String>, key: impl Into<String>) -> Self {
        NameRequest {
            raw: raw.into(),
            key: key.into(),
        }
    }
}

/// How an assigned name was derived from its raw name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Derivation {
    /// The raw name was already the normalized name.
    Unchanged,
    /// Normalized (case, separators, transliteration, prefix), within the limit.
    Normalized,
    /// Normalized and shortened to the limit (`head_<hash6>_tail`).
    Shortened,
    /// Collided with another name and got a key-hash suffix; `salt` 0 is the plain
    /// key hash, higher values are re-hashes after a second collision.
    Disambiguated { salt: u32 },
}

/// A name chosen by [`NameAllocator::assign`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssignedName {
    pub name: String,
    pub derivation: Derivation,
}

/// The result of [`NameAllocator::assign`]: one name per distinct request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Assignment {
    names: BTreeMap<NameRequest, AssignedName>,
}

impl Assignment {
    /// The name assigned to `(raw, key)`.
    pub fn get(&self, raw: &str, key: &str) -> Option<&str> {
        self.names
            .get(&NameRequest::new(raw, key))
            .map(|a| a.name.as_str())
    }
    /// Full record for a request.
    pub fn get_request(&self, req: &NameRequest) -> Option<&AssignedName> {
        self.names.get(req)
    }
    /// All requests and their names, ordered by request.
    pub fn iter(&self) -> impl Iterator<Item = (&NameRequest, &AssignedName)> {
        self.names.iter()
    }
    pub fn len(&self) -> usize {
        self.names.len()
    }
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// Assigns unique host-safe names to a set of requests.
///
/// The result depends only on the *set* of requests and reserved names, never on the
/// order they were added in (see the crate docs for the exact scheme).
///
/// ```
/// use mcpdesc_names::{NameAllocator, NameOptions};
/// let mut a = NameAllocator::new(NameOptions::default());
/// a.request("getUser", "GET /user");
/// a.request("get-user", "GET /users/{id}");
/// a.request("list_pets", "GET /pets");
/// let names = a.assign().unwrap();
/// assert_eq!(names.get("list_pets", "GET /pets"), Some("list_pets"));
/// let x = names.get("getUser", "GET /user").unwrap();
/// let y = names.get("get-user", "GET /users/{id}").unwrap();
/// assert!(x.starts_with("get_user_") && y.starts_with("get_user_") && x != y);
/// ```
#[derive(Debug, Clone)]
pub struct NameAllocator {
    options: NameOptions,
    reserved: BTreeSet<String>,
    requests: BTreeSet<NameRequest>,
}

struct Entity<'a> {
    req: &'a NameRequest,
    base: String,
    candidate: String,
}

impl NameAllocator {
    pub fn new(options: NameOptions) -> Self {
        NameAllocator {
            options,
            reserved: BTreeSet::new(),
            requests: BTreeSet::new(),
        }
    }

    /// Marks a name as taken: no request will be given it (e.g. tool names that are
    /// kept as they are, or names fixed by an `x-mcp.name` override).
    pub fn reserve(&mut self, name: impl Into<String>) {
        self.reserved.insert(name.into());
    }

    /// Adds a request. Adding the same `(raw, key)` twice is the same as once.
    pub fn request(&mut self, raw: impl Into<String>, key: impl Into<String>) {
        self.requests.insert(NameRequest::new(raw, key));
    }

    /// Computes the names.
    pub fn assign(&self) -> Result<Assignment, NameError> {
        let opts = &self.options;
        let entities: Vec<Entity<'_>> = self
            .requests
            .iter()
            .map(|req| {
                // The full base is kept for re-shortening; the candidate is
                // `normalize(raw)`, made from it rather than normalized again.
                let full = normalize_base(unprefixed(&req.raw, opts));
                let candidate = prefixed(&full, opts);
                debug_assert!(candidate.len() - opts.prefix().len() <= full.len());
                Entity {
                    req,
                    base: full,
                    candidate,
                }
            })
            .collect();

        let mut by_candidate: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, e) in entities.iter().enumerate() {
            by_candidate
                .entry(e.candidate.as_str())
                .or_default()
                .push(i);
        }

        let mut out: Vec<Option<AssignedName>> = vec![None; entities.len()];
        let mut taken: BTreeSet<String> = self.reserved.clone();
        let mut contested: Vec<usize> = Vec::new();
        for (cand, members) in &by_candidate {
            let keeper = if self.reserved.contains(*cand) {
                None
            } else if let [only] = members.as_slice() {
                Some(*only)
            } else {
                // Several requests normalize alike: the one whose raw name already *is*
                // the candidate keeps it, if it is the only such one. A rule on the
                // set, not on positions, so order cannot matter.
                let owners: Vec<usize> = members
                    .iter()
                    .copied()
                    .filter(|i| entities[*i].req.raw == *cand)
                    .collect();
                match owners.as_slice() {
                    [only] => Some(*only),
                    _ => None,
                }
            };
            for &i in members {
                if Some(i) == keeper {
                    let e = &entities[i];
                    let derivation = if e.req.raw == e.candidate {
                        Derivation::Unchanged
                    } else if e.candidate.len() - opts.prefix().len() < e.base.len() {
                        Derivation::Shortened
                    } else {
                        Derivation::Normalized
                    };
                    taken.insert(e.candidate.clone());
                    out[i] = Some(AssignedName {
                        name: e.candidate.clone(),
                        derivation,
                    });
                } else {
                    contested.push(i);
                }
            }
        }

        // Contested entities get `_<hash6(key)>`; any that still collide (with a kept
        // name or with each other) are re-hashed with a salt, all colliders at once.
        let mut salt: Vec<u32> = vec![0; entities.len()];
        let mut rounds = 0;
        loop {
            let mut proposed: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            for &i in &contested {
                proposed
                    .entry(suffixed(&entities[i], salt[i], opts))
                    .or_default()
                    .push(i);
            }
            let mut clash = false;
            for (name, members) in &proposed {
                if members.len() > 1 || taken.contains(name) {
                    clash = true;
                    for &i in members {
                        salt[i] += 1;
                    }
                }
            }
            if !clash {
                for (name, members) in proposed {
                    for i in members {
                        out[i] = Some(AssignedName {
                            name: name.clone(),
                            derivation: Derivation::Disambiguated { salt: salt[i] },
                        });
                    }
                }
                break;
            }
            rounds += 1;
            if rounds >= MAX_ROUNDS {
                return Err(NameError::Unresolvable { rounds });
            }
        }

        let mut names = BTreeMap::new();
        for (e, a) in entities.iter().zip(out) {
            if let Some(a) = a {
                names.insert(e.req.clone(), a);
            }
        }
        Ok(Assignment { names })
    }
}

/// The key-hash input for a salt: the key alone first (reproducible by hand), then
/// key, raw name and salt, so even two requests with equal keys separate.
pub fn suffix_hash_input(req: &NameRequest, salt: u32) -> String {
    if salt == 0 {
        req.key.clone()
    } else {
        format!("{}\u{0}{}\u{0}{salt}", req.key, req.raw)
    }
}

fn suffixed(e: &Entity<'_>, salt: u32, opts: &NameOptions) -> String {
    let hash = hash_hex(&suffix_hash_input(e.req, salt), HASH_LEN);
    let stem = shorten(&e.base, opts.base_budget() - HASH_LEN - 1);
    format!("{}{stem}_{hash}", opts.prefix())
}

/// Convenience: names for `(raw, key)` pairs, in input order.
///
/// ```
/// let names = mcpdesc_names::assign_names(
///     &[("getPetById", "GET /pets/{petId}"), ("pets/get", "GET /pets")],
///     &Default::default(),
/// ).unwrap();
/// assert_eq!(names, ["get_pet_by_id", "pets_get"]);
/// ```
pub fn assign_names<R: AsRef<str>, K: AsRef<str>>(
    items: &[(R, K)],
    options: &NameOptions,
) -> Result<Vec<String>, NameError> {
    let mut alloc = NameAllocator::new(options.clone());
    for (raw, key) in items {
        alloc.request(raw.as_ref(), key.as_ref());
    }
    let assignment = alloc.assign()?;
    Ok(items
        .iter()
        .map(|(raw, key)| {
            assignment
                .get(raw.as_ref(), key.as_ref())
                .unwrap_or_default()
                .to_string()
        })
        .collect())
}
