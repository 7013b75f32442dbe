//! One tool as the server stubs' templates read it: the same fields for the Rust and
//! the TypeScript stub, each named in its own language.

use crate::Error;
use crate::escape::Untrusted;
use crate::ir::{Ir, Names};
use crate::render::{Ident, untrusted};

/// A tool of a server stub: its handler method, wire name and types.
pub(crate) struct StubTool {
    pub doc: Untrusted,
    pub deprecated: bool,
    /// The handler method.
    pub name: Ident,
    /// The tool's name on the wire.
    pub wire: Untrusted,
    /// The `<Tool>Input` type.
    pub input: Ident,
    /// The `<Tool>Output` type.
    pub output: Ident,
}

/// The tools of `ir` in order, each method and type named by `ident` (the stub
/// language's identifier from an item's [`Names`]).
pub(crate) fn stub_tools(
    ir: &Ir,
    ident: impl Fn(&Names) -> Result<Ident, Error>,
) -> Result<Vec<StubTool>, Error> {
    let type_name = |id: usize| -> Result<Ident, Error> {
        let t = ir
            .types
            .get(id)
            .ok_or(Error::Internal("dangling type id"))?;
        ident(&t.names)
    };
    ir.tools
        .iter()
        .map(|t| {
            Ok(StubTool {
                doc: untrusted(t.doc.clone()),
                deprecated: t.deprecated,
                name: ident(&t.names)?,
                wire: untrusted(t.wire_name.clone()),
                input: type_name(t.input)?,
                output: type_name(t.output)?,
            })
        })
        .collect()
}
