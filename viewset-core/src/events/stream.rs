//! `GET <prefix>/stream`: permissions at connect, then per event the subscriber's own view decides what it sees.
//!
//! Frames: `event: ready` first; then `id:` (`<n>` on an outbox bus, the same on every instance; else
//! `<instance>-<n>`), `event: created | updated | deleted` and data
//! `{"action", "model", "table", "pk", "record"}` (`record` through the read representation without hidden fields;
//! absent for deletes); a keep-alive comment every 15 s. The subscriber's query is the list's (its filters with
//! lookups, related fields, `or=` groups, `search`, `q`, `fields`), checked at connect as the list checks it (the
//! same 422s, before `ready`); any other parameter is a 422 `unknown_parameter`. An event is delivered when its
//! record matches the query at delivery time. A record that an update moves out of a subscriber's view, after the
//! subscriber saw it on this stream, arrives as `deleted` with `"reason": "out_of_filter"` (it left the query's
//! filters) or `"out_of_scope"` (the caller may no longer see it); one an update moves into the view arrives as
//! `updated`. A delete reaches the subscribers that were shown the record, and those whose query its last state
//! matches.
//! `Last-Event-ID` resumes with the next event (from this process's bounded buffer, or on an outbox bus from the
//! table, on any instance), or gets `event: reset` (refetch) with `"reason": "resume_unavailable"` when the event is
//! no longer kept, is newer than the newest, or is another process's (or another kind of bus's), or
//! `"malformed_last_event_id"` when it is not an id this server sends (`<n>` or `<instance>-<n>`). When the
//! PostgreSQL listener had to reconnect (events may have been lost), every subscriber gets `event: reset` with
//! `"reason": "reconnected"`. When the server shuts down ([`crate::limits::begin_shutdown`]) every stream ends
//! with `event: reset`, `"reason": "shutdown"` and a `retry:` hint. A subscriber that falls behind is caught up from the buffer, or told
//! `event: reset` with `"reason": "lagged"`; it never slows writers or other subscribers, and holds no database
//! connection while it waits. Subscribers with equal requests share each event's visibility check
//! (see `shared_views`), and the checks of a ViewSet's different views for one event are asked in one statement per
//! chunk of views (see `batch`).

use std::collections::HashSet;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;

use crate::access;
use crate::access::fields::visible;
use crate::access::required::required_condition;
use crate::access::throttled::{entered, throttles_of};
use crate::boxed::{SendFuture, send};
use crate::bus::batch::Turn;
use crate::bus::event::Action;
use crate::bus::event_bus::EventBus;
use crate::bus::event_bus::Sequenced;
use crate::bus::shared_views::{Membership, Outcome};
use crate::contract::hooks::Hooks;
use crate::error::ApiError;
use crate::events::resume::Resume;
use crate::events::visibility::{could_see_deleted_in, visible_frame_in};
use crate::request::RequestContext;
use crate::schema::ReadSchema;
use crate::throttle::declared::Throttles;
use crate::types::operation::Operation;

/// The reconnection delay a closing stream suggests to its client (`retry:`), in seconds.
const SHUTDOWN_RETRY_SECS: u64 = 2;

/// Frames buffered per subscriber before it counts as slow.
const FRAMES: usize = 64;

/// The stream route of `V`. What depends on `V` (its admission, required row policies, throttles and checks) is
/// read here; the route's future is one type for every ViewSet.
pub fn stream_route<V: Hooks>(mut request: RequestContext) -> impl Future<Output = Response> + Send {
    let admitted = access::admit::<V>(&mut request, Operation::Stream);
    // Asked after the throttles, as `access::enter` then the required row policies would.
    // The subscriber's query is the list's: checked as the list checks it, before `ready`.
    let required = match admitted {
        Ok(()) => required_condition::<V>(&request)
            .and_then(|_| access::view_scope::<V>(&request))
            .and_then(|_| crate::query::unread::refuse_any_unread(&request)),
        Err(_) => Ok(()),
    };
    let viewset = StreamOf {
        throttles: throttles_of::<V>(),
        required,
        name: std::any::type_name::<V>(),
        of: ViewSetChecks::of::<V>(),
    };
    subscribe(request, admitted, viewset)
}

/// What the stream route reads of its ViewSet.
struct StreamOf {
    throttles: (&'static Throttles, &'static str),
    required: Result<(), ApiError>,
    name: &'static str,
    of: ViewSetChecks,
}

/// [`stream_route`] past its generic part: the throttles, then the subscriber.
async fn subscribe(request: RequestContext, admitted: Result<(), ApiError>, viewset: StreamOf) -> Response {
    let entered = entered(&request, admitted, viewset.throttles).await;
    let pass = match entered.and_then(|pass| viewset.required.map(|()| pass)) {
        Ok(pass) => pass,
        Err(err) => return err.into_response(),
    };
    // A place among the instance's open streams (`Limits::max_streams`), held by the subscriber until it ends.
    let slot = match crate::limits::stream_slot() {
        Ok(slot) => slot,
        Err(shed) => return shed.into_response(),
    };
    let resume = Resume::parse(request.headers.get("last-event-id"));
    let bus = request.events.clone();
    let receiver = bus.subscribe();
    let gaps = bus.gaps();
    let membership = bus.views().join(viewset.name, request.view_key());
    let (frames, out) = mpsc::channel::<Event>(FRAMES);
    let of = viewset.of;
    let unfiltered = unfiltered(&request);
    tokio::spawn(
        Subscriber { request, unfiltered, bus, membership, frames, seen: HashSet::new(), _slot: slot, of }
            .run(receiver, gaps, resume),
    );
    let frames = futures_util::StreamExt::map(ReceiverStream::new(out), Ok::<Event, Infallible>);
    pass.stamp(Sse::new(frames).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response())
}

/// The subscriber's request without its query, when its query filters (any parameter but `fields`): to tell a
/// record that left the filter (`out_of_filter`) from one that left the caller's scope (`out_of_scope`).
fn unfiltered(request: &RequestContext) -> Option<RequestContext> {
    if request.query.iter().all(|(key, _)| key == "fields") {
        return None;
    }
    let mut bare = request.clone();
    bare.query = crate::query::QueryParams::default();
    Some(bare)
}

/// A record's data as one view shows it, for a frame: the record through the read representation without the
/// fields hidden from this view (`None` for a delete), serialized.
type FrameData<'a> = &'a (dyn Fn(Option<serde_json::Value>) -> Arc<str> + Sync);

/// [`ViewSetChecks::visible`].
type VisibleCheck = for<'a> fn(
    &'a RequestContext,
    &'a serde_json::Value,
    Option<Turn<'a>>,
    FrameData<'a>,
) -> SendFuture<'a, Result<Option<Arc<str>>, ApiError>>;

/// [`ViewSetChecks::deleted`].
type DeletedCheck =
    for<'a> fn(&'a RequestContext, &'a serde_json::Value, Option<Turn<'a>>) -> SendFuture<'a, Result<bool, ApiError>>;

/// What a subscriber asks of its ViewSet, typed by it once ([`ViewSetChecks::of`]): the rest of the stream is
/// compiled once, not per ViewSet (build time: BENCHMARKS.md, "Compile cost").
#[derive(Clone, Copy)]
struct ViewSetChecks {
    table: &'static str,
    model_name: &'static str,
    /// The frame data of the record with this key, if this view may see it now (`visibility::visible_frame_in`).
    visible: VisibleCheck,
    /// Whether this view could see a deleted record's last state (`visibility::could_see_deleted_in`).
    deleted: DeletedCheck,
}

impl ViewSetChecks {
    fn of<V: Hooks>() -> ViewSetChecks {
        ViewSetChecks {
            table: sea_orm::EntityName::table_name(&<V::Entity as Default>::default()),
            model_name: V::CONFIG.model_name,
            visible: |request, pk, turn, data| {
                send(async move {
                    let shown = |model| data(Some(visible(&V::Detail::from_model(model), &request.left_out())));
                    visible_frame_in::<V>(request, pk, turn, shown).await
                })
            },
            deleted: |request, snapshot, turn| send(could_see_deleted_in::<V>(request, snapshot, turn)),
        }
    }
}

struct Subscriber {
    request: RequestContext,
    /// [`unfiltered`].
    unfiltered: Option<RequestContext>,
    bus: EventBus,
    /// This subscriber's group: subscribers with equal requests share each event's visibility check.
    membership: Membership,
    frames: mpsc::Sender<Event>,
    /// Keys of records this subscriber was shown, to tell it when one leaves its view.
    seen: HashSet<String>,
    /// Its place among the open streams, given back when it ends.
    _slot: Option<crate::limits::shed::Slot>,
    /// Its ViewSet.
    of: ViewSetChecks,
}

impl Subscriber {
    async fn send(&self, event: Event) -> bool {
        self.frames.send(event).await.is_ok()
    }

    async fn reset(&self, reason: &str) -> bool {
        self.bus.stats().reset(reason);
        self.send(Event::default().event("reset").data(json!({"reason": reason}).to_string())).await
    }

    async fn run(
        mut self,
        mut receiver: broadcast::Receiver<Sequenced>,
        mut gaps: tokio::sync::watch::Receiver<u64>,
        resume: Resume,
    ) {
        let ready = json!({"model": self.of.model_name, "table": self.of.table});
        if !self.send(Event::default().event("ready").data(ready.to_string())).await {
            return;
        }
        let mut last = 0;
        let durable = self.bus.is_durable();
        let replay = match resume {
            Resume::Nothing => Ok(true),
            Resume::Malformed => Err("malformed_last_event_id"),
            Resume::After(seq) if durable => self.catch_up(seq, &mut last).await,
            Resume::From(instance, seq) if !durable && instance == self.bus.instance() => {
                self.catch_up(seq, &mut last).await
            }
            Resume::After(_) | Resume::From(..) => Err("resume_unavailable"),
        };
        match replay {
            Ok(true) => {}
            Ok(false) => return,
            Err(reason) => {
                if !self.reset(reason).await {
                    return;
                }
            }
        }
        loop {
            // A gap (the PostgreSQL listener reconnected) is told before any event delivered after it.
            let received = tokio::select! {
                biased;
                () = crate::limits::shutting_down() => {
                    let retry = Duration::from_secs(SHUTDOWN_RETRY_SECS);
                    let last = Event::default().event("reset").retry(retry).data(json!({"reason": "shutdown"}).to_string());
                    self.bus.stats().reset("shutdown");
                    self.send(last).await;
                    return;
                }
                // The client went away: end now (and give back its stream place), not at the next event.
                () = self.frames.closed() => return,
                changed = gaps.changed() => {
                    if changed.is_err() || !self.reset("reconnected").await {
                        return;
                    }
                    continue;
                }
                received = receiver.recv() => received,
            };
            match received {
                Ok(event) if event.seq <= last => {}
                Ok(event) => {
                    last = event.seq;
                    if !self.handle(&event).await {
                        return;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => match self.catch_up(last, &mut last).await {
                    Ok(true) => {}
                    Ok(false) => return,
                    Err(_) => {
                        receiver = receiver.resubscribe();
                        if !self.reset("lagged").await {
                            return;
                        }
                    }
                },
                Err(broadcast::error::RecvError::Closed) => return,
            }
        }
    }

    /// Hands this subscriber the events after `seq` (from the bus's buffer, or an outbox's table, page by page);
    /// `last` follows each one handed. `Ok(false)` when the client is gone; `Err` when they are not all kept.
    async fn catch_up(&mut self, seq: u64, last: &mut u64) -> Result<bool, &'static str> {
        let mut cursor = seq;
        loop {
            let Some(events) = self.bus.after(cursor).await else { return Err("resume_unavailable") };
            // From here on, nothing up to `seq` is sent again (the live events this process has not read yet).
            *last = (*last).max(cursor);
            let more = self.bus.may_have_more(events.len());
            for event in events {
                cursor = event.seq;
                *last = cursor;
                if !self.handle(&event).await {
                    return Ok(false);
                }
            }
            if !more {
                return Ok(true);
            }
        }
    }

    /// Counts an event this subscriber is not shown (`failed`: its visibility check failed); the client is still
    /// there (`true`).
    fn not_shown(&self, failed: bool) -> bool {
        self.bus.stats().not_shown(failed);
        true
    }

    /// Sends `event` if this subscriber may see it; `false` when the client is gone. The frame's data is built
    /// and serialized once per view (`shared_views`): with 10,000 subscribers of one view, the event costs one
    /// visibility query and one serialization, and each subscriber only copies the text into its frame.
    async fn handle(&mut self, sequenced: &Sequenced) -> bool {
        let event = &sequenced.event;
        if event.table != self.of.table {
            return true;
        }
        let key = event.pk.to_string();
        // A frame's data: what happened to which record; `record` (as this view shows it) or `reason` is added.
        let model_name = self.of.model_name;
        let base = |action: Action| json!({"action": action.as_str(), "model": model_name, "table": event.table, "pk": event.pk});
        let data = |record: Option<serde_json::Value>| -> std::sync::Arc<str> {
            let mut data = base(event.action);
            if let Some(record) = record {
                data["record"] = record;
            }
            data.to_string().into()
        };
        let frame = |record: Option<serde_json::Value>| Outcome::Visible(data(record));
        let request = &self.request;
        let views = self.bus.views();
        let (action, data) = match event.action {
            Action::Created | Action::Updated => {
                let membership = &self.membership;
                let outcome = views
                    .outcome(membership, sequenced.seq, || async {
                        let turn = views.batch(membership, sequenced.seq);
                        match (self.of.visible)(request, &event.pk, turn, &data).await {
                            Ok(Some(data)) => Outcome::Visible(data),
                            Ok(None) => Outcome::Hidden,
                            Err(err) => {
                                tracing::warn!(error = %err, "stream visibility check failed; event skipped");
                                Outcome::Failed
                            }
                        }
                    })
                    .await;
                match outcome {
                    Outcome::Visible(data) => {
                        self.seen.insert(key);
                        (event.action, data)
                    }
                    Outcome::Hidden if self.seen.remove(&key) => {
                        let in_scope = match &self.unfiltered {
                            Some(bare) => matches!((self.of.visible)(bare, &event.pk, None, &data).await, Ok(Some(_))),
                            None => false,
                        };
                        let mut data = base(Action::Deleted);
                        data["reason"] = json!(if in_scope { "out_of_filter" } else { "out_of_scope" });
                        (Action::Deleted, data.to_string().into())
                    }
                    Outcome::Hidden => return self.not_shown(false),
                    Outcome::Failed => return self.not_shown(true),
                }
            }
            Action::Deleted => {
                // A record this subscriber was shown is told gone, whatever its last state (a full-text match
                // cannot be asked of a deleted row); any other by its last state.
                let outcome = match &event.snapshot {
                    _ if self.seen.contains(&key) => frame(None),
                    Some(snapshot) => {
                        views
                            .outcome(&self.membership, sequenced.seq, || async {
                                let turn = views.batch(&self.membership, sequenced.seq);
                                match (self.of.deleted)(request, snapshot, turn).await {
                                    Ok(true) => frame(None),
                                    _ => Outcome::Hidden,
                                }
                            })
                            .await
                    }
                    None => Outcome::Hidden,
                };
                self.seen.remove(&key);
                match outcome {
                    Outcome::Visible(data) => (Action::Deleted, data),
                    Outcome::Hidden => return self.not_shown(false),
                    Outcome::Failed => return self.not_shown(true),
                }
            }
        };
        let id = self.bus.event_id(sequenced.seq);
        self.send(Event::default().id(id).event(action.as_str()).data(&*data)).await
    }
}
