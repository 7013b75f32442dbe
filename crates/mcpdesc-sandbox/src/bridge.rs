//! The `api` bridge: `api.<name>(args)` turns into a [`CallRequest`] to the host and a promise
//! that the engine loop settles with the host's [`CallResponse`].

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::Ordering;

use rquickjs::function::{Opt, Rest};
use rquickjs::{Ctx, Exception, Function, Object, Persistent, Promise, Value};
use serde_json::Value as Json;

use crate::runtime::Shared;
use crate::{ErrorKind, ScriptError};

pub(crate) struct CallRequest {
    pub(crate) id: u64,
    pub(crate) tool: String,
    pub(crate) args: Json,
}

pub(crate) struct CallResponse {
    pub(crate) id: u64,
    pub(crate) result: Result<Json, String>,
}

/// How the engine reaches its host: `api` requests out, their responses in, log lines out. In
/// a worker process it is the pipe to the gateway ([`crate::worker`]).
pub(crate) trait Link {
    /// Sends one `api` request; `false` when the host is gone.
    fn call(&mut self, req: CallRequest) -> bool;
    /// Waits for the next response; `None` when the host is gone (the worker is about to be
    /// killed at its hard stop).
    fn recv(&mut self) -> Option<CallResponse>;
    /// One console line, sent as it is logged (so that it survives a killed worker).
    fn log(&mut self, line: String);
}

/// One promise waiting for the host: its resolve and reject functions, and the Error to reject
/// it with (created at the call site, so that its stack names the script's line of the call).
pub(crate) struct Waiting {
    pub(crate) resolve: Persistent<Function<'static>>,
    pub(crate) reject: Persistent<Function<'static>>,
    pub(crate) error: Persistent<Object<'static>>,
}

/// Resolves or rejects the promise a host response belongs to.
pub(crate) fn settle<'js>(ctx: &Ctx<'js>, shared: &Rc<RefCell<Shared>>, resp: CallResponse) {
    let Some(w) = shared.borrow_mut().pending.remove(&resp.id) else {
        return;
    };
    let (Ok(resolve), Ok(reject), Ok(error)) = (
        w.resolve.restore(ctx),
        w.reject.restore(ctx),
        w.error.restore(ctx),
    ) else {
        return;
    };
    let message = match resp.result {
        Ok(v) => match ctx.json_parse(v.to_string()) {
            Ok(js) => {
                let _ = resolve.call::<_, ()>((js,));
                return;
            }
            Err(_) => {
                let _ = ctx.catch();
                "the call's result does not fit in the sandbox's memory limit".to_owned()
            }
        },
        Err(msg) => msg,
    };
    let _ = error.set("message", message);
    let _ = reject.call::<_, ()>((error,));
}

/// `api.<name>`: checks the call limit, serialises the argument, and returns a promise that the
/// engine loop settles when the host answers.
pub(crate) fn api_function<'js>(
    ctx: &Ctx<'js>,
    name: String,
    shared: Rc<RefCell<Shared>>,
) -> rquickjs::Result<Function<'js>> {
    let f = Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>,
              args: Opt<Value<'js>>,
              _rest: Rest<Value<'js>>|
              -> rquickjs::Result<Promise<'js>> {
            {
                let mut s = shared.borrow_mut();
                if s.calls_made >= s.limits.max_calls {
                    let msg = format!(
                        "call limit: api.{name} would be call {} of at most {} per execution",
                        s.calls_made + 1,
                        s.limits.max_calls
                    );
                    if s.fatal.is_none() {
                        s.fatal = Some(ScriptError::new(ErrorKind::CallLimit, msg.clone()));
                    }
                    s.stop.store(true, Ordering::SeqCst);
                    return Err(Exception::throw_range(&ctx, &msg));
                }
            }
            let args_json = match args.0 {
                None => Json::Object(Default::default()),
                Some(v) if v.is_undefined() => Json::Object(Default::default()),
                Some(v) => {
                    let text = match ctx.json_stringify(v)? {
                        Some(t) => t.to_string()?,
                        None => {
                            return Err(Exception::throw_type(
                                &ctx,
                                &format!(
                                    "api.{name}: the argument is not JSON (a function or symbol?)"
                                ),
                            ));
                        }
                    };
                    match serde_json::from_str::<Json>(&text) {
                        Ok(j) => j,
                        Err(e) => {
                            return Err(Exception::throw_type(
                                &ctx,
                                &format!("api.{name}: the argument is not JSON: {e}"),
                            ));
                        }
                    }
                }
            };
            let (promise, resolve, reject) = ctx.promise()?;
            // Created here so that its stack names the script's line of this call.
            let error = Exception::from_message(ctx.clone(), "")?.into_object();
            let mut s = shared.borrow_mut();
            let id = s.next_id;
            s.next_id += 1;
            s.calls_made += 1;
            if !s.link.call(CallRequest {
                id,
                tool: name.clone(),
                args: args_json,
            }) {
                return Err(Exception::throw_internal(&ctx, "the sandbox host is gone"));
            }
            s.pending.insert(
                id,
                Waiting {
                    resolve: Persistent::save(&ctx, resolve),
                    reject: Persistent::save(&ctx, reject),
                    error: Persistent::save(&ctx, error),
                },
            );
            Ok(promise)
        },
    )?;
    Ok(f)
}
