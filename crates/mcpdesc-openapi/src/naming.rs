//! Tool names and fallback titles from the operations alone (nothing is converted yet),
//! so the document's skeleton is known before the first tool is built.

use crate::site::OpSite;

/// Host-safe, unique tool names for the kept operations, in their order: from
/// `x-mcp.name`, the operationId or method + path (see [`OpSite::raw_name`]), through
/// `mcpdesc-names` (order-independent: the same operations get the same names however
/// they are listed).
pub(crate) fn assign(
    sites: &[&OpSite<'_>],
    opts: &mcpdesc_names::NameOptions,
) -> Result<Vec<String>, mcpdesc_names::NameError> {
    let raw: Vec<(String, String)> = sites.iter().map(|s| (s.raw_name(), s.key())).collect();
    let mut alloc = mcpdesc_names::NameAllocator::new(opts.clone());
    for (name, key) in &raw {
        alloc.request(name.as_str(), key.as_str());
    }
    let a = alloc.assign()?;
    Ok(raw
        .iter()
        .map(|(name, key)| a.get(name, key).unwrap_or_default().to_string())
        .collect())
}

/// The title of a tool whose operation has no summary: `listPets` → `List pets`;
/// `get /pets/{id}` → `Get pets id`.
pub(crate) fn readable(raw: &str) -> String {
    use heck::ToSnakeCase;
    let words = raw
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect::<String>()
        .to_snake_case()
        .replace('_', " ");
    let mut c = words.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => raw.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readable_titles() {
        assert_eq!(readable("listPets"), "List pets");
        assert_eq!(readable("get /pets/{petId}"), "Get pets pet id");
    }
}
