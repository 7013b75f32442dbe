//! The captured `console`: display of logged values and the log budget.

use rquickjs::{Ctx, Value};

use crate::runtime::Shared;

/// `console.*` argument display: strings as they are, other values as JSON where they have one,
/// else their `String()` form.
pub(crate) fn display<'js>(ctx: &Ctx<'js>, v: Value<'js>) -> String {
    if let Some(s) = v.as_string() {
        return s.to_string().unwrap_or_default();
    }
    if v.is_object() && !v.is_function() {
        if let Ok(Some(s)) = ctx.json_stringify(v.clone()) {
            if let Ok(s) = s.to_string() {
                return s;
            }
        }
        let _ = ctx.catch();
    }
    match v.get::<rquickjs::convert::Coerced<String>>() {
        Ok(s) => s.0,
        Err(_) => {
            let _ = ctx.catch();
            "(unprintable)".to_owned()
        }
    }
}

pub(crate) fn push_log(s: &mut Shared, line: String) {
    if s.logs_cut {
        return;
    }
    let budget = s.limits.max_output_bytes;
    let cost = line.len() + 1;
    if s.log_bytes + cost <= budget {
        s.link.log(line);
        s.log_bytes += cost;
        return;
    }
    let room = budget.saturating_sub(s.log_bytes);
    let cut = floor_char_boundary(&line, room);
    if cut > 0 {
        s.link.log(line[..cut].to_owned());
    }
    s.link.log(format!(
        "[logs cut: over the {budget}-byte log limit; later lines dropped]"
    ));
    s.logs_cut = true;
}

pub(crate) fn floor_char_boundary(s: &str, i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    let mut i = i;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::atomic::AtomicBool;
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::Limits;
    use crate::bridge::{CallRequest, CallResponse, Link};

    struct Lines(Arc<Mutex<Vec<String>>>);

    impl Link for Lines {
        fn call(&mut self, _req: CallRequest) -> bool {
            false
        }
        fn recv(&mut self) -> Option<CallResponse> {
            None
        }
        fn log(&mut self, line: String) {
            self.0.lock().unwrap_or_else(|e| e.into_inner()).push(line);
        }
    }

    #[test]
    fn logs_are_cut_on_a_char_boundary_with_one_note() {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let mut s = Shared {
            limits: Limits {
                max_output_bytes: 10,
                ..Limits::default()
            },
            link: Box::new(Lines(lines.clone())),
            stop: Arc::new(AtomicBool::new(false)),
            next_id: 0,
            calls_made: 0,
            pending: HashMap::new(),
            log_bytes: 0,
            logs_cut: false,
            fatal: None,
        };
        push_log(&mut s, "abc".into()); // 4 bytes
        push_log(&mut s, "ééé".into()); // 7 bytes: over by one; the line itself fits in the 6 left
        push_log(&mut s, "never".into());
        let logs = lines.lock().unwrap_or_else(|e| e.into_inner()).clone();
        assert_eq!(logs[0], "abc");
        assert_eq!(logs[1], "ééé");
        assert!(logs[2].starts_with("[logs cut"), "{logs:?}");
        assert_eq!(logs.len(), 3);
    }
}
