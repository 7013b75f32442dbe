//! Engine errors as [`ScriptError`]s: the thrown value's kind, message and script position.

use std::cell::RefCell;
use std::rc::Rc;

use rquickjs::{Ctx, Exception};

use crate::console::{display, floor_char_boundary};
use crate::limits::timeout;
use crate::runtime::{SCRIPT_FILE, Shared, WRAPPER_LINES};
use crate::{ErrorKind, MAX_MESSAGE_BYTES, ScriptError};

pub(crate) fn setup_exception<'js>(ctx: &Ctx<'js>, e: rquickjs::Error) -> ScriptError {
    let detail = if matches!(e, rquickjs::Error::Exception) {
        let v = ctx.catch();
        v.as_object()
            .and_then(|o| Exception::from_object(o.clone()))
            .and_then(|x| x.message())
            .unwrap_or_else(|| e.to_string())
    } else {
        e.to_string()
    };
    ScriptError::new(
        ErrorKind::Internal,
        format!("sandbox setup failed: {detail}"),
    )
}

/// Turns an engine error (usually a pending exception) into a [`ScriptError`].
pub(crate) fn exception<'js>(
    ctx: &Ctx<'js>,
    e: rquickjs::Error,
    shared: &Rc<RefCell<Shared>>,
) -> ScriptError {
    {
        let s = shared.borrow();
        if let Some(f) = &s.fatal {
            let _ = ctx.catch();
            return f.clone();
        }
    }
    let thrown = match e {
        rquickjs::Error::Exception => ctx.catch(),
        other => {
            let kind = if matches!(other, rquickjs::Error::Allocation) {
                ErrorKind::Memory
            } else {
                ErrorKind::Exception
            };
            return ScriptError::new(kind, other.to_string());
        }
    };
    let limits = shared.borrow().limits.clone();
    // Reading the thrown value may run script code (getters); the interrupt handler still bounds it.
    let (name, message, stack) = match thrown
        .as_object()
        .and_then(|o| Exception::from_object(o.clone()))
    {
        Some(x) => {
            let name = x.get::<_, Option<String>>("name").ok().flatten();
            (name, x.message().unwrap_or_default(), x.stack())
        }
        None => {
            let m = if thrown.is_null() || thrown.is_undefined() {
                String::new()
            } else {
                display(ctx, thrown.clone())
            };
            (None, m, None)
        }
    };
    let _ = ctx.catch();
    let kind = if message == "interrupted" && name.as_deref() == Some("InternalError") {
        ErrorKind::Timeout
    } else if message == "out of memory" || (thrown.is_null() && name.is_none()) {
        ErrorKind::Memory
    } else if name.as_deref() == Some("RangeError") && message.contains("stack") {
        ErrorKind::Stack
    } else {
        ErrorKind::Exception
    };
    let message = match kind {
        ErrorKind::Timeout => return timeout(&limits),
        ErrorKind::Memory => format!(
            "the script ran out of its {} MiB memory limit",
            limits.memory_bytes / (1024 * 1024)
        ),
        ErrorKind::Stack => format!(
            "the script exceeded its {} KiB stack limit ({message})",
            limits.stack_bytes / 1024
        ),
        _ => match &name {
            Some(n) if !n.is_empty() && !message.is_empty() => format!("{n}: {message}"),
            Some(n) if !n.is_empty() => n.clone(),
            _ => message,
        },
    };
    let (line, column) = stack.as_deref().and_then(script_position).unzip();
    let message = if message.len() > MAX_MESSAGE_BYTES {
        let cut = floor_char_boundary(&message, MAX_MESSAGE_BYTES);
        format!(
            "{}… [cut: the message is {} bytes]",
            &message[..cut],
            message.len()
        )
    } else {
        message
    };
    ScriptError {
        kind,
        message,
        line,
        column,
    }
}

/// The first `script.js:L:C` in a QuickJS stack, with the wrapper lines taken off.
pub(crate) fn script_position(stack: &str) -> Option<(u32, u32)> {
    let needle = format!("{SCRIPT_FILE}:");
    let mut rest = stack;
    while let Some(at) = rest.find(&needle) {
        let tail = &rest[at + needle.len()..];
        let mut it = tail.splitn(3, |c: char| !c.is_ascii_digit());
        if let (Some(l), Some(c)) = (it.next(), it.next()) {
            if let (Ok(l), Ok(c)) = (l.parse::<u32>(), c.parse::<u32>()) {
                if l > WRAPPER_LINES {
                    return Some((l - WRAPPER_LINES, c));
                }
            }
        }
        rest = tail;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_position_skips_the_wrapper_line() {
        let stack = "    at <anonymous> (script.js:4:11)\n    at <eval> (script.js:1:1)\n";
        assert_eq!(script_position(stack), Some((3, 11)));
        assert_eq!(script_position("    at f (<input>:1:2)\n"), None);
    }
}
