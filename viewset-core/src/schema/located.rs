//! Where in a JSON body a typed parse failed, from the error's line and column alone: one function for every body
//! type. (Wrapping the deserializer to track the path, as `serde_path_to_error` does, compiles every body type's
//! deserializer a second time; this reads the bytes again only when a body was refused.)

/// The path (object keys and array indexes, outermost first) of the innermost value holding the byte just before
/// `line`:`column` (serde_json's position of an error: just after what it had read). A position inside an object
/// key or at an object's closing brace names the object itself.
pub(crate) fn path_at(bytes: &[u8], line: usize, column: usize) -> Vec<String> {
    let Some(last) = offset_of(bytes, line, column).checked_sub(1) else { return Vec::new() };
    let mut frames: Vec<Frame> = Vec::new();
    let mut pending_key: Option<String> = None;
    let mut string: Option<Text> = None;
    for (i, &b) in bytes.iter().enumerate().take(last + 1) {
        if let Some(text) = &mut string {
            if text.escaped {
                text.escaped = false;
            } else if b == b'\\' {
                text.escaped = true;
            } else if b == b'"' {
                if text.key {
                    pending_key = Some(unescaped(&bytes[text.start..=i]));
                }
                string = None;
            }
            continue;
        }
        match (b, frames.last_mut()) {
            (b'{', _) => frames.push(Frame::Object { key: None, expect_key: true }),
            (b'[', _) => frames.push(Frame::Array { index: 0 }),
            (b'}' | b']', _) => {
                frames.pop();
            }
            (b'"', top) => {
                let key = matches!(top, Some(Frame::Object { expect_key: true, .. }));
                string = Some(Text { start: i, key, escaped: false });
            }
            (b':', Some(Frame::Object { key, expect_key })) => {
                *key = pending_key.take();
                *expect_key = false;
            }
            (b',', Some(Frame::Object { key, expect_key })) => {
                *key = None;
                *expect_key = true;
            }
            (b',', Some(Frame::Array { index })) => *index += 1,
            _ => {}
        }
    }
    let mut path = Vec::new();
    for frame in frames {
        match frame {
            Frame::Object { key: Some(key), .. } => path.push(key),
            Frame::Object { key: None, .. } => break,
            Frame::Array { index } => path.push(index.to_string()),
        }
    }
    path
}

/// A container being read: an object with the key whose value is being read, or an array at an element.
enum Frame {
    Object { key: Option<String>, expect_key: bool },
    Array { index: usize },
}

/// A string being read: where its opening quote is, whether it is an object key, whether a backslash came last.
struct Text {
    start: usize,
    key: bool,
    escaped: bool,
}

/// The byte offset of serde_json's 1-based `line` and its `column` (the bytes read on that line).
fn offset_of(bytes: &[u8], line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match bytes[start..].iter().position(|b| *b == b'\n') {
            Some(newline) => start += newline + 1,
            None => return bytes.len(),
        }
    }
    (start + column).min(bytes.len())
}

/// A quoted JSON key as text (escapes decoded; as written if they do not decode).
fn unescaped(quoted: &[u8]) -> String {
    let raw = &quoted[1..quoted.len() - 1];
    if !raw.contains(&b'\\') {
        return String::from_utf8_lossy(raw).into_owned();
    }
    serde_json::from_slice(quoted).unwrap_or_else(|_| String::from_utf8_lossy(raw).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, column: usize) -> Vec<String> {
        path_at(text.as_bytes(), 1, column)
    }

    #[test]
    fn paths() {
        let body = r#"{"a": 5, "b": {"c": [1, "x"]}, "d\"e": true}"#;
        assert_eq!(at(body, body.find('5').unwrap() + 1), ["a"]);
        assert_eq!(at(body, body.find("\"x\"").unwrap() + 3), ["b", "c", "1"]);
        assert_eq!(at(body, body.find("true").unwrap() + 4), ["d\"e"]);
        // The closing brace of `b` names `b`; a key names its object.
        assert_eq!(at(body, body.find("]}").unwrap() + 2), ["b"]);
        assert_eq!(at(body, body.find("\"c\"").unwrap() + 3), ["b"]);
        assert!(at(body, body.len()).is_empty());
        assert!(at(body, 0).is_empty());
        let lines = "{\n  \"a\": {\n    \"b\": 1\n  }\n}";
        assert_eq!(path_at(lines.as_bytes(), 3, "    \"b\": 1".len()), ["a", "b"]);
        assert_eq!(path_at(lines.as_bytes(), 9, 9), Vec::<String>::new());
    }

    #[test]
    fn any_position_of_any_bytes() {
        let odd: [&[u8]; 6] =
            [b"", b"\"", b"{\"a\\", b"{\"\\\"\":[[,]}]}}", b"\n\n{\xff\"\xfe\": 1", b"[{\"k\"}:,:,\"x\":]"];
        for bytes in odd {
            for line in 0..5 {
                for column in 0..bytes.len() + 3 {
                    let _ = path_at(bytes, line, column);
                }
            }
        }
    }
}
