//! Boxing futures: a boxed future that is `Send` because the type checker proved it where it was boxed ([`send`]), not again for
//! every type the boxing is compiled for.
//!
//! Coercing a concrete future to `Pin<Box<dyn Future + Send>>` makes rustc prove, as it compiles the coercion for
//! that type, that the future and every future it awaits (the store's, sea-orm's, sqlx's, each with its own
//! states) are `Send`: 7–9 ms of one core per boxed ViewSet future on the 2-core bench host, some 100 ms per
//! ViewSet (bench/notes/build-time-rounds.md, `codegen_select_candidate`). [`send`] asks `F: Send` of its
//! argument instead, a bound that is checked once, where a generic function calls it, and boxes the future as a
//! `dyn Future` without the auto trait, whose coercion costs nothing to prove. [`boxed`] writes a future straight
//! into its allocation.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A future boxed by [`send`]: `Send`, of one type for every future of the same output.
pub(crate) struct SendFuture<'a, T>(Pin<Box<dyn Future<Output = T> + 'a>>);

// SAFETY: a `SendFuture` is made only by `send`, from an `F: Send`, and owns that future and nothing else; moving it
// to another thread moves the `F`, which `F: Send` allows. Its output is made by the thread that polls it.
unsafe impl<T> Send for SendFuture<'_, T> {}

impl<T> Future for SendFuture<'_, T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        self.0.as_mut().poll(cx)
    }
}

/// `future`, boxed: what `Box::pin(future)` as a `Pin<Box<dyn Future + Send>>` is, without proving `Send` again for
/// each type it is compiled for (see the module).
#[inline]
pub(crate) fn send<'a, F: Future + Send + 'a>(future: F) -> SendFuture<'a, F::Output> {
    SendFuture(Box::pin(future))
}

/// `make()`'s future in a heap allocation, written there rather than built on the stack and copied in whole as
/// `Box::pin(make())` does: a sea-orm driver query's future is about 9 KB, and that copy was 9k instructions of
/// every query (bench/notes/build-time-rounds.md). Every boxed database call in the crate goes through it.
pub(crate) fn boxed<F: Future>(make: impl FnOnce() -> F) -> Pin<Box<F>> {
    let mut slot = Box::<F>::new_uninit();
    slot.write(make());
    // SAFETY: `write` just initialized the allocation.
    Box::into_pin(unsafe { slot.assume_init() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send>(_: &T) {}

    #[tokio::test]
    async fn a_boxed_future_is_send_and_answers_what_it_wraps() {
        let shared = std::sync::Arc::new(41);
        let future = send(async move { *shared + 1 });
        assert_send(&future);
        assert_eq!(tokio::spawn(future).await.unwrap(), 42);
    }
}
