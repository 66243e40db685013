//! One event's visibility for many views of a ViewSet, read in one batched statement (issue 47).
//!
//! `shared_views` runs one visibility check per view; with a thousand views that is a thousand queries per event.
//! Here the first view of a ViewSet to ask about event `seq` becomes the leader of a batch for (ViewSet, `seq`):
//! it waits until every view of the ViewSet with subscribers has handed in its scope, or [`GATHER`] at most, then
//! runs one statement per chunk of distinct scopes (`store::visibility`; views whose scopes are the same statement
//! are asked once), decoding the record once per chunk. Each view
//! takes its answer and the record, then applies its own object permissions and hidden fields. A view that comes
//! after its batch has run starts the next one; a view whose leader went away checks alone. Nothing here is
//! generic: the leader's ViewSet hands in how the statement is run and the record decoded ([`Run`]).

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;
use sea_orm::sea_query::SelectStatement;
use tokio::sync::{Notify, watch};

use crate::error::ApiError;

/// How long a leader waits for the other views' scopes before it runs what it has.
pub(crate) const GATHER: Duration = Duration::from_millis(5);

/// Batches are kept for the most recent events only (as `shared_views` keeps outcomes).
const KEEP: u64 = 32;

/// How many of a batch's distinct scopes a new view's scope is compared with (equal scopes are asked once).
const COMPARED: usize = 8;

/// What one statement answered: the record (decoded by the ViewSet; `None` when no row has the key) and whether
/// each view of the chunk admits it.
pub(crate) struct Chunk {
    /// The record, shared by the chunk's views (each clones it out).
    pub(crate) record: Option<Mutex<Box<dyn Any + Send>>>,
    /// One answer per scope of the chunk, in the order they were handed in.
    pub(crate) admits: Vec<bool>,
}

/// What a batch answered, chunk by chunk (the scopes of one statement each, in order), and the frames made of it.
pub(crate) struct Answers {
    chunks: Vec<Chunk>,
    /// Frame data per (scope, fields left out), shared by the views that show the same record the same way.
    frames: Mutex<Vec<Frame>>,
}

/// A frame's data, made for a scope's record shown without some fields.
type Frame = (usize, Vec<&'static str>, Arc<str>);

/// Frames kept per batch (views beyond that many ways of showing the record make their own).
const FRAMES: usize = 16;

impl Answers {
    /// The answers of a batch's statements, in order.
    pub(crate) fn new(chunks: Vec<Chunk>) -> Self {
        Answers { chunks, frames: Mutex::new(Vec::new()) }
    }

    /// The chunk holding the `index`th scope of the batch, when that scope admits the record. The chunks' sizes are
    /// the store's (each statement's scopes), read from their answers rather than assumed.
    fn chunk(&self, mut index: usize) -> Option<&Chunk> {
        for chunk in &self.chunks {
            match chunk.admits.get(index) {
                Some(admits) => return admits.then_some(chunk),
                None => index -= chunk.admits.len(),
            }
        }
        None
    }

    /// `f` of the record, when the `index`th scope of the batch admits it.
    pub(crate) fn with_admitted<M: 'static, R>(&self, index: usize, f: impl FnOnce(&M) -> R) -> Option<R> {
        let record = self.chunk(index)?.record.as_ref()?.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        record.downcast_ref::<M>().map(f)
    }

    /// Whether the `index`th scope of the batch admits the record (a deleted record's last state).
    pub(crate) fn admits(&self, index: usize) -> bool {
        self.chunk(index).is_some()
    }

    /// The frame data of the `index`th scope's record shown without `left_out`, when a view that shows it so has
    /// made it ([`Answers::keep_frame`]).
    pub(crate) fn known_frame(&self, index: usize, left_out: &[&'static str]) -> Option<Arc<str>> {
        let frames = self.frames.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        frames.iter().find(|(i, out, _)| *i == index && out == left_out).map(|(.., data)| data.clone())
    }

    /// `data`, kept as the frame data of the `index`th scope's record shown without `left_out`, for the next views
    /// that show it so.
    pub(crate) fn keep_frame(&self, index: usize, left_out: Vec<&'static str>, data: Arc<str>) -> Arc<str> {
        let mut frames = self.frames.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if frames.len() < FRAMES {
            frames.push((index, left_out, data.clone()));
        }
        data
    }
}

/// A batch's outcome as its views receive it (the error as text: it is logged by each view).
pub(crate) type Outcome = Arc<Result<Answers, String>>;

/// How the leader runs a batch: the views' scopes (each already narrowed to the record's key) → the answers.
pub(crate) type Run<'a> = Box<dyn FnOnce(Vec<SelectStatement>) -> BoxFuture<'a, Result<Answers, ApiError>> + Send + 'a>;

/// A batch still taking scopes.
struct Open {
    scopes: Arc<Mutex<Vec<SelectStatement>>>,
    /// Told when every expected view has handed in its scope.
    full: Arc<Notify>,
    done: watch::Receiver<Option<Outcome>>,
}

/// The batches of one event of one ViewSet.
#[derive(Default)]
struct Slot {
    /// Views that handed in a scope for this event, in any batch.
    taken: usize,
    open: Option<Open>,
}

#[derive(Default)]
struct State {
    slots: HashMap<(&'static str, u64), Slot>,
    newest: u64,
}

/// The open and recent batches of one event bus.
#[derive(Default)]
pub(crate) struct Batches(Mutex<State>);

/// One view's turn in the batch of one event: from [`crate::bus::shared_views::SharedViews::batch`].
pub(crate) struct Turn<'a> {
    pub(crate) batches: &'a Batches,
    pub(crate) viewset: &'static str,
    pub(crate) seq: u64,
    /// The views of the ViewSet with subscribers now: a batch is full when all of them are in.
    pub(crate) expected: usize,
}

enum Role {
    Leader(watch::Sender<Option<Outcome>>, Arc<Notify>, Arc<Mutex<Vec<SelectStatement>>>),
    Follower(watch::Receiver<Option<Outcome>>, usize),
}

impl Turn<'_> {
    /// Hands in this view's `scope` and waits for the batch's answers and its scope's index in them; `run` is
    /// used when this view leads. `None` when the leader went away before answering (check alone then).
    pub(crate) async fn submit<'a>(self, scope: SelectStatement, run: Run<'a>) -> Option<(Outcome, usize)> {
        let key = (self.viewset, self.seq);
        let role = {
            let mut state = self.batches.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if self.seq > state.newest {
                state.newest = self.seq;
                let oldest = self.seq.saturating_sub(KEEP);
                state.slots.retain(|(_, seq), _| *seq >= oldest);
            }
            let slot = state.slots.entry(key).or_default();
            slot.taken += 1;
            let full = slot.taken >= self.expected;
            match &slot.open {
                Some(open) => {
                    let mut scopes = open.scopes.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    // Views whose scopes are the same statement (no row policy, or the same principal's) share
                    // one answer: the first few distinct scopes are compared, the rest are appended.
                    let index = match scopes.iter().take(COMPARED).position(|asked| *asked == scope) {
                        Some(index) => index,
                        None => {
                            scopes.push(scope);
                            scopes.len() - 1
                        }
                    };
                    if full {
                        open.full.notify_one();
                    }
                    Role::Follower(open.done.clone(), index)
                }
                None => {
                    let (sender, done) = watch::channel(None);
                    let notify = Arc::new(Notify::new());
                    if full {
                        // Kept as a permit: the leader does not wait at all.
                        notify.notify_one();
                    }
                    let scopes = Arc::new(Mutex::new(vec![scope]));
                    slot.open = Some(Open { scopes: scopes.clone(), full: notify.clone(), done });
                    Role::Leader(sender, notify, scopes)
                }
            }
        };
        match role {
            Role::Follower(mut done, index) => {
                let outcome = done.wait_for(Option::is_some).await.ok()?.clone();
                outcome.map(|outcome| (outcome, index))
            }
            Role::Leader(sender, full, scopes) => {
                let _ = tokio::time::timeout(GATHER, full.notified()).await;
                let scopes = {
                    let mut state = self.batches.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    // Closed: a view that comes now starts the next batch.
                    if let Some(slot) = state.slots.get_mut(&key)
                        && slot.open.as_ref().is_some_and(|open| Arc::ptr_eq(&open.scopes, &scopes))
                    {
                        slot.open = None;
                    }
                    std::mem::take(&mut *scopes.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
                };
                let outcome: Outcome = Arc::new(run(scopes).await.map_err(|err| err.to_string()));
                let _ = sender.send(Some(outcome.clone()));
                Some((outcome, 0))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use sea_orm::sea_query::{Expr, Query};

    use super::*;

    fn turn(batches: &Batches, seq: u64, expected: usize) -> Turn<'_> {
        Turn { batches, viewset: "V", seq, expected }
    }

    /// Answers every scope: the `n`th admits when `n` is even; counts the statements run.
    fn run(runs: &AtomicUsize) -> Run<'_> {
        Box::new(move |scopes| {
            Box::pin(async move {
                runs.fetch_add(1, Ordering::SeqCst);
                let admits = (0..scopes.len()).map(|n| n % 2 == 0).collect();
                Ok(Answers::new(vec![Chunk { record: Some(Mutex::new(Box::new(7_i32))), admits }]))
            })
        })
    }

    fn scope(n: usize) -> SelectStatement {
        Query::select().expr(Expr::cust(n.to_string())).to_owned()
    }

    #[tokio::test]
    async fn the_views_of_one_event_share_one_run_and_each_has_its_answer() {
        let batches = Batches::default();
        let runs = AtomicUsize::new(0);
        let (shared, counted) = (&batches, &runs);
        let ask = |expected, n| async move {
            let (outcome, index) = turn(shared, 1, expected).submit(scope(n), run(counted)).await.expect("answer");
            let answers = outcome.as_ref().as_ref().expect("ok");
            (index, answers.with_admitted(index, |n: &i32| *n))
        };
        // Four views, two of them with the same scope: three scopes asked, in one run.
        let mut answers: Vec<_> = futures_util::future::join_all([0, 1, 2, 1].map(|n| ask(4, n))).await;
        answers.sort();
        assert_eq!(answers, vec![(0, Some(7)), (1, None), (1, None), (2, Some(7))]);
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        // A view coming after its batch ran starts the next one and does not wait for the others.
        let started = tokio::time::Instant::now();
        let late = turn(&batches, 1, 5).submit(scope(3), run(&runs)).await.expect("answer");
        assert_eq!(late.1, 0);
        assert!(started.elapsed() < GATHER, "{:?}", started.elapsed());
        assert_eq!(runs.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_leader_runs_what_it_has_after_gathering() {
        let batches = Batches::default();
        let runs = AtomicUsize::new(0);
        let started = tokio::time::Instant::now();
        let (_, index) = turn(&batches, 5, 10).submit(scope(0), run(&runs)).await.expect("answer");
        assert!(started.elapsed() >= GATHER);
        assert_eq!((index, runs.load(Ordering::SeqCst)), (0, 1));
    }
}
