//! Per-thread buffers: how a request's thread hands telemetry (span records, metric
//! observations) to the thread that processes it without sharing a cache line with
//! another request's thread.
//!
//! There is one buffer per thread slot (twice the available parallelism, at most
//! [`MAX_BUFFERS`]), each a `Vec` behind a mutex of its own, each holding at most
//! `capacity` items. Threads take slots in the order they first push, so the request
//! threads of a runtime sized to the cores each get a buffer of their own: a push is an
//! uncontended lock and a write to memory the thread wrote itself. The consumer swaps
//! each buffer for an empty one (its spare, emptied, its capacity kept) under the
//! buffer's lock and handles the items outside it, so a request's thread never waits
//! for an item being processed.
//!
//! Why not a channel: a bounded channel's senders share its tail index and its slots, so
//! every item cost a request's thread a compare-and-swap and the cache lines another
//! core wrote last (`try_send` was the span recorder's costliest symbol on a worker,
//! about 0.3 µs a record; PERFORMANCE.md, issue 29).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Items waiting for their consumer, in per-thread buffers (see the module's
/// documentation).
pub(super) struct Buffers<T> {
    pub(super) buffers: Box<[Buffer<T>]>,
    pub(super) capacity: usize,
}

/// The most buffers [`Buffers`] keeps.
pub(super) const MAX_BUFFERS: usize = 64;

/// One buffer, alone on its cache lines (so two threads pushing to neighbours do not
/// share one).
#[repr(align(128))]
pub(super) struct Buffer<T>(Mutex<Pending<T>>);

pub(super) struct Pending<T> {
    pub(super) items: Vec<T>,
    /// Set once the consumer has shut down: later items are refused.
    closed: bool,
}

/// Hands out thread slots (see [`Buffers`]).
static NEXT_SLOT: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// This thread's slot: which buffer it pushes to (modulo their number).
    static SLOT: usize = NEXT_SLOT.fetch_add(1, Ordering::Relaxed);
}

/// The calling thread's slot (see [`Buffers`]; [`super::InFlight`] counts by it too).
pub(super) fn this_slot() -> usize {
    SLOT.with(|s| *s)
}

/// What [`Buffers::push`] did with an item.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Pushed {
    Kept,
    /// Kept, and its buffer is now half full: the consumer should drain it.
    KeptHalfFull,
    Dropped,
}

impl<T> Buffers<T> {
    /// Buffers holding `total` items at most, spread over `count` buffers (at least one
    /// item each).
    pub(super) fn new(total: usize, count: usize) -> Buffers<T> {
        let count = count.clamp(1, MAX_BUFFERS);
        Buffers {
            buffers: (0..count)
                .map(|_| {
                    Buffer(Mutex::new(Pending {
                        items: Vec::new(),
                        closed: false,
                    }))
                })
                .collect(),
            capacity: total.div_ceil(count).max(1),
        }
    }

    /// Two buffers per thread the machine runs at once.
    pub(super) fn for_this_machine(total: usize) -> Buffers<T> {
        Buffers::for_cores(
            total,
            std::thread::available_parallelism().map_or(1, usize::from),
        )
    }

    pub(super) fn for_cores(total: usize, cores: usize) -> Buffers<T> {
        Buffers::new(total, 2 * cores)
    }

    pub(super) fn lock(buffer: &Buffer<T>) -> MutexGuard<'_, Pending<T>> {
        // A thread that panicked holding the lock left a valid `Vec`: carry on with it.
        buffer
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Keeps `item` in this thread's buffer, or drops it when the buffer is full or
    /// closed.
    pub(super) fn push(&self, item: T) -> Pushed {
        self.try_push(item).unwrap_or(Pushed::Dropped)
    }

    /// Keeps `item` in this thread's buffer (`Kept` or `KeptHalfFull`), or hands it
    /// back when the buffer is full or closed.
    pub(super) fn try_push(&self, item: T) -> Result<Pushed, T> {
        let slot = this_slot() % self.buffers.len();
        let mut pending = Buffers::lock(&self.buffers[slot]);
        if pending.closed || pending.items.len() >= self.capacity {
            return Err(item);
        }
        pending.items.push(item);
        Ok(if pending.items.len() == self.capacity.div_ceil(2) {
            Pushed::KeptHalfFull
        } else {
            Pushed::Kept
        })
    }

    /// How many items wait, over all the buffers.
    #[cfg(test)]
    pub(super) fn waiting(&self) -> usize {
        self.buffers
            .iter()
            .map(|b| Buffers::lock(b).items.len())
            .sum()
    }

    /// Hands every waiting item to `each`, buffer by buffer. A buffer is swapped for
    /// `spare` (emptied, its capacity kept) under its lock and handed on outside it, so a
    /// request's thread never waits for an item being processed. With `close`, the
    /// buffers take no more items.
    pub(super) fn drain(&self, spare: &mut Vec<T>, close: bool, mut each: impl FnMut(T)) {
        for buffer in &*self.buffers {
            {
                let mut pending = Buffers::lock(buffer);
                pending.closed |= close;
                if pending.items.is_empty() {
                    continue;
                }
                std::mem::swap(&mut pending.items, spare);
            }
            spare.drain(..).for_each(&mut each);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_buffer_hands_the_item_back() {
        let b = Buffers::new(2, 1);
        assert_eq!(b.try_push(1), Ok(Pushed::KeptHalfFull));
        assert_eq!(b.try_push(2), Ok(Pushed::Kept));
        assert_eq!(b.try_push(3), Err(3));
        let mut got = Vec::new();
        b.drain(&mut Vec::new(), true, |i| got.push(i));
        assert_eq!(got, [1, 2]);
        assert_eq!(b.try_push(4), Err(4), "closed");
        assert_eq!(b.push(5), Pushed::Dropped);
    }

    #[test]
    fn a_drain_keeps_the_buffers_capacity() {
        let b = Buffers::new(64, 1);
        let mut spare = Vec::with_capacity(64);
        for i in 0..10 {
            b.push(i);
        }
        b.drain(&mut spare, false, drop);
        // The buffer now holds the spare's allocation; the spare the buffer's.
        assert!(Buffers::lock(&b.buffers[0]).items.capacity() >= 64);
        assert!(spare.is_empty() && spare.capacity() >= 10);
    }
}
