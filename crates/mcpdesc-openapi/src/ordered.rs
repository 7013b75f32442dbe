//! An ordered parallel pipeline: items are processed on several threads, each taking
//! the next item as soon as it is free, and delivered strictly in order.
//!
//! The importer converts operations of very different sizes (a GitHub operation's
//! tools take from 1 KB to 200 KB of JSON). Fixed windows with a barrier left a core
//! idle while the window's largest operation finished; here nobody waits for a
//! window, and whichever thread finds the next item in order ready delivers it (and
//! every ready item after it). Memory stays bounded: no thread starts an item more
//! than `lookahead` items ahead of the last delivered one.
//!
//! Plain scoped threads, not rayon tasks: a worker that waits for the delivery to
//! catch up must not be a rayon task, or a rayon call inside `process` could steal it
//! and wait on itself.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, TryLockError};

/// Calls `process(i)` for `i in 0..n` on up to `threads` threads and `deliver` on the
/// results in order of `i`. Stops at the first error of `deliver` (items not yet
/// started are not processed) and returns it. A panic in `process` or `deliver`
/// propagates to the caller after the other threads stopped.
pub fn run<T, E>(
    n: usize,
    threads: usize,
    lookahead: usize,
    process: impl Fn(usize) -> T + Sync,
    deliver: impl FnMut(T) -> Result<(), E> + Send,
) -> Result<(), E>
where
    T: Send,
    E: Send,
{
    let mut deliver = deliver;
    let threads = threads.min(n);
    if threads <= 1 {
        for i in 0..n {
            deliver(process(i))?;
        }
        return Ok(());
    }
    let lookahead = lookahead.max(threads);
    let next = AtomicUsize::new(0);
    let delivered = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let slots: Vec<Mutex<Option<T>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let writer: Mutex<(_, Option<E>)> = Mutex::new((deliver, None));
    // Wakes workers waiting for the delivery to catch up.
    let progress = (Mutex::new(()), Condvar::new());

    let take = |k: usize| match slots[k].lock() {
        Ok(mut s) => s.take(),
        Err(_) => None,
    };
    let ready = |k: usize| k < n && slots[k].lock().map(|s| s.is_some()).unwrap_or(false);
    // Delivers every ready item in order; returns when the next one is not ready or
    // another thread is delivering (which then sees what this thread just stored).
    let drain = || {
        loop {
            let mut w = match writer.try_lock() {
                Ok(w) => w,
                Err(TryLockError::WouldBlock) => return,
                Err(TryLockError::Poisoned(_)) => {
                    stop.store(true, Ordering::SeqCst);
                    return;
                }
            };
            let mut k = delivered.load(Ordering::SeqCst);
            while let Some(item) = (k < n).then(|| take(k)).flatten() {
                if let Err(e) = (w.0)(item) {
                    w.1 = Some(e);
                    stop.store(true, Ordering::SeqCst);
                    return;
                }
                k += 1;
                delivered.store(k, Ordering::SeqCst);
                progress.1.notify_all();
            }
            drop(w);
            // An item stored while the lock was held: its thread could not deliver.
            if !ready(delivered.load(Ordering::SeqCst)) {
                return;
            }
        }
    };

    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                // Whatever happens here (a panic included), the others stop waiting.
                let _guard = StopOnPanic(&stop);
                loop {
                    if stop.load(Ordering::SeqCst) {
                        return;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= n {
                        return;
                    }
                    // The item at `delivered` is never waiting here (it is within the
                    // lookahead), so delivery always progresses.
                    while i >= delivered.load(Ordering::SeqCst) + lookahead {
                        if stop.load(Ordering::SeqCst) {
                            return;
                        }
                        // Notified on every delivery; the timeout only bounds a wake-up
                        // that raced with the check above.
                        if let Ok(g) = progress.0.lock() {
                            let _ = progress
                                .1
                                .wait_timeout(g, std::time::Duration::from_millis(1));
                        }
                    }
                    let item = process(i);
                    if let Ok(mut slot) = slots[i].lock() {
                        *slot = Some(item);
                    }
                    drain();
                }
            });
        }
    });
    match writer.into_inner() {
        Ok((_, Some(e))) => Err(e),
        _ => Ok(()),
    }
}

struct StopOnPanic<'a>(&'a AtomicBool);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn delivers_everything_in_order_whatever_the_processing_times() {
        for threads in [1, 2, 4] {
            let mut got = Vec::new();
            let r: Result<(), ()> = run(
                200,
                threads,
                8,
                |i| {
                    // Uneven work: every 7th item is slow.
                    if i % 7 == 0 {
                        std::thread::sleep(std::time::Duration::from_millis(2));
                    }
                    i * 10
                },
                |v| {
                    got.push(v);
                    Ok(())
                },
            );
            assert!(r.is_ok());
            assert_eq!(got, (0..200).map(|i| i * 10).collect::<Vec<_>>());
        }
    }

    #[test]
    fn never_runs_further_ahead_than_the_lookahead() {
        let delivered = AtomicUsize::new(0);
        let worst = AtomicUsize::new(0);
        let r: Result<(), ()> = run(
            300,
            3,
            5,
            |i| {
                let ahead = i.saturating_sub(delivered.load(Ordering::SeqCst));
                worst.fetch_max(ahead, Ordering::SeqCst);
                i
            },
            |_| {
                delivered.fetch_add(1, Ordering::SeqCst);
                Ok(())
            },
        );
        assert!(r.is_ok());
        assert!(worst.load(Ordering::SeqCst) < 5, "{worst:?}");
    }

    #[test]
    fn the_first_delivery_error_stops_the_run() {
        let processed = AtomicUsize::new(0);
        let mut got = Vec::new();
        let r = run(
            10_000,
            2,
            4,
            |i| {
                processed.fetch_add(1, Ordering::SeqCst);
                i
            },
            |v| {
                if v == 3 {
                    return Err("full disk");
                }
                got.push(v);
                Ok(())
            },
        );
        assert_eq!(r, Err("full disk"));
        assert_eq!(got, vec![0, 1, 2]);
        assert!(processed.load(Ordering::SeqCst) < 100);
    }

    #[test]
    fn a_panic_reaches_the_caller_and_nothing_hangs() {
        let r = std::panic::catch_unwind(|| {
            run(
                1_000,
                2,
                4,
                |i| {
                    assert!(i != 5, "boom");
                    i
                },
                |_| Ok::<(), ()>(()),
            )
        });
        assert!(r.is_err());
    }
}
