//! Where a reconnecting stream resumes: the client's `Last-Event-ID` (`<number>` on a durable bus, where events are
//! numbered cluster-wide; `<instance>-<number>` in process), read by [`Resume::parse`].

/// What the client's `Last-Event-ID` asks for.
#[derive(Debug, PartialEq)]
pub(crate) enum Resume {
    /// No header (or an empty one, which `EventSource` never sends): start from now.
    Nothing,
    /// Neither `<number>` nor `<instance>-<number>`.
    Malformed,
    /// The events after `seq` in the cluster-wide order of an outbox.
    After(u64),
    /// The events of `instance` after `seq`.
    From(String, u64),
}

impl Resume {
    /// The resume `header` asks for (`None`: no header).
    pub(crate) fn parse(header: Option<&axum::http::HeaderValue>) -> Resume {
        let Some(value) = header else { return Resume::Nothing };
        let Ok(value) = value.to_str() else { return Resume::Malformed };
        if value.trim().is_empty() {
            return Resume::Nothing;
        }
        if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
            return value.parse().map_or(Resume::Malformed, Resume::After);
        }
        let parsed = value.split_once('-').and_then(|(instance, seq)| {
            let hex = !instance.is_empty() && instance.bytes().all(|b| b.is_ascii_hexdigit());
            let digits = !seq.is_empty() && seq.bytes().all(|b| b.is_ascii_digit());
            (hex && digits).then(|| seq.parse::<u64>().ok().map(|seq| (instance.to_string(), seq))).flatten()
        });
        parsed.map_or(Resume::Malformed, |(instance, seq)| Resume::From(instance, seq))
    }
}

#[cfg(test)]
mod tests {
    use super::Resume;
    use axum::http::HeaderValue;

    fn parse(value: &str) -> Resume {
        Resume::parse(Some(&HeaderValue::from_str(value).expect("header")))
    }

    #[test]
    fn last_event_ids_are_parsed_strictly() {
        assert_eq!(Resume::parse(None), Resume::Nothing);
        assert_eq!(parse(""), Resume::Nothing);
        assert_eq!(parse("0123456789ab-42"), Resume::From("0123456789ab".into(), 42));
        assert_eq!(parse("42"), Resume::After(42));
        assert_eq!(parse("0"), Resume::After(0));
        for malformed in [
            "garbage",
            "abc-",
            "-1",
            "abc-x",
            "abc-1-2",
            "xyz-1",
            "abc- 1",
            "abc-99999999999999999999999",
            "99999999999999999999999",
            "+5",
            " 5",
            "5.0",
        ] {
            assert_eq!(parse(malformed), Resume::Malformed, "{malformed}");
        }
    }
}
