//! The frames of a ViewSet's event stream (`GET <prefix>/stream`), read in process: a webhook feed is a stream
//! subscriber like any other, so what it delivers is what the stream would show its principal.

use axum::body::Body;
use bytes::{Buf, BytesMut};
use http_body_util::BodyExt;

/// One server-sent event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Frame {
    /// `id:`.
    pub id: Option<String>,
    /// `event:` (`ready`, `created`, `updated`, `deleted`, `reset`).
    pub event: String,
    /// `data:`, its lines joined.
    pub data: String,
}

/// Frames out of a stream's body.
pub(super) struct Frames {
    body: Body,
    buffer: BytesMut,
}

impl Frames {
    pub(super) fn new(body: Body) -> Frames {
        Frames { body, buffer: BytesMut::new() }
    }

    /// The next frame; `None` when the stream ended (or failed).
    pub(super) async fn next(&mut self) -> Option<Frame> {
        loop {
            if let Some(end) = find_end(&self.buffer) {
                let raw = self.buffer.split_to(end.0);
                self.buffer.advance(end.1);
                match parse(&String::from_utf8_lossy(&raw)) {
                    Some(frame) => return Some(frame),
                    None => continue,
                }
            }
            match self.body.frame().await? {
                Ok(frame) => {
                    if let Ok(data) = frame.into_data() {
                        self.buffer.extend_from_slice(&data);
                    }
                }
                Err(_) => return None,
            }
        }
    }
}

/// Where the first frame of `buffer` ends (the blank line) and the length of its separator.
fn find_end(buffer: &[u8]) -> Option<(usize, usize)> {
    let lf = buffer.windows(2).position(|w| w == b"\n\n").map(|at| (at, 2));
    let crlf = buffer.windows(4).position(|w| w == b"\r\n\r\n").map(|at| (at, 4));
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

/// A frame's fields; `None` for a comment (keep-alive) or an empty block.
fn parse(text: &str) -> Option<Frame> {
    let mut frame = Frame::default();
    let mut data: Vec<&str> = Vec::new();
    for line in text.lines() {
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "id" => frame.id = Some(value.to_owned()),
            "event" => frame.event = value.to_owned(),
            "data" => data.push(value),
            _ => {}
        }
    }
    if frame.event.is_empty() && data.is_empty() {
        return None;
    }
    if frame.event.is_empty() {
        frame.event = "message".to_owned();
    }
    frame.data = data.join("\n");
    Some(frame)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn reads_frames_and_skips_comments() {
        let text = ": keep-alive\n\nevent: ready\ndata: {}\n\nid: 7\nevent: created\ndata: {\"pk\":1}\n\n";
        let mut frames = Frames::new(Body::from(text));
        assert_eq!(frames.next().await.map(|f| f.event), Some("ready".to_owned()));
        let created = frames.next().await.expect("created");
        assert_eq!((created.id.as_deref(), created.data.as_str()), (Some("7"), "{\"pk\":1}"));
        assert_eq!(frames.next().await, None);
    }
}
