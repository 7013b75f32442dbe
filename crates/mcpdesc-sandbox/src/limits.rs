//! The limits of one execution, and the errors their breach ends it with.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::runtime::Shared;
use crate::{ErrorKind, ScriptError};

/// The limits of one execution. Every one is enforced; hitting any ends the execution with a
/// [`ScriptError`] of the matching [`ErrorKind`].
#[derive(Debug, Clone)]
pub struct Limits {
    /// Wall time from the start of the execution to its end, host calls included.
    pub wall: Duration,
    /// The engine's heap limit (QuickJS `JS_SetMemoryLimit`). Unlike QuickJS, 0 is not
    /// "unlimited": there is no way to turn a limit off.
    pub memory_bytes: usize,
    /// The engine's stack limit (QuickJS `JS_SetMaxStackSize`); the engine thread gets this plus
    /// a fixed headroom for the Rust frames around it.
    pub stack_bytes: usize,
    /// `api` calls per execution; the host never sees more.
    pub max_calls: usize,
    /// `api` calls in flight at once; further calls wait in order.
    pub max_concurrent_calls: usize,
    /// Bytes of the returned value as JSON, and (separately) of all log lines together.
    pub max_output_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            wall: Duration::from_secs(10),
            memory_bytes: 64 * 1024 * 1024,
            stack_bytes: 1024 * 1024,
            max_calls: 50,
            max_concurrent_calls: 8,
            max_output_bytes: 1024 * 1024,
        }
    }
}

/// Headroom on the engine thread's stack above `stack_bytes`, for the Rust and C frames that
/// QuickJS's own stack check does not count (our closures, serde_json, the allocator).
pub(crate) const STACK_HEADROOM: usize = 2 * 1024 * 1024;

/// The longest wall time honoured (a larger `Limits::wall` is cut to this).
pub(crate) const MAX_WALL: Duration = Duration::from_secs(24 * 60 * 60);

pub(crate) fn timeout(limits: &Limits) -> ScriptError {
    ScriptError::new(
        ErrorKind::Timeout,
        format!(
            "the script ran past its wall-time limit of {} ms",
            limits.wall.as_millis()
        ),
    )
}

pub(crate) fn check_stop(shared: &Rc<RefCell<Shared>>, deadline: Instant) -> Option<ScriptError> {
    let s = shared.borrow();
    if let Some(f) = &s.fatal {
        return Some(f.clone());
    }
    if Instant::now() >= deadline {
        return Some(timeout(&s.limits));
    }
    if s.stop.load(Ordering::Relaxed) {
        return Some(ScriptError::new(
            ErrorKind::Internal,
            "the execution was stopped by the sandbox (a host call failed to run)",
        ));
    }
    None
}
