//! Time buckets (`group_by=created_at__month`) and the time zone they are cut in (`tz=`).
//!
//! A bucket is answered as the text of its start in ISO 8601, as precise as the bucket: `2026-03-29T14:00` (hour),
//! `2026-03-29` (day), `2026-03-23` (week: its Monday), `2026-03` (month), `2026` (year). Each database writes that
//! text itself (`to_char` on PostgreSQL, `strftime` / `date` on SQLite, `DATE_FORMAT` on MariaDB / MySQL), so the
//! grouping, the ordering and the answer are the same text on all three.
//!
//! Buckets are cut in UTC. A named zone (`tz=Europe/Berlin`) needs the database's own zone rules, including its
//! daylight-saving changes: PostgreSQL has them (`AT TIME ZONE`), so a named zone is accepted there; SQLite has no
//! zone database, and MariaDB / MySQL have one only when its time-zone tables are loaded
//! (`mysql_tzinfo_to_sql`), so on those a zone other than `UTC` is a 422 `unsupported_time_zone` rather than an
//! answer in another zone than asked. A name PostgreSQL does not know is a 422 at `tz` too.

use sea_orm::DbBackend;
use sea_orm::sea_query::ColumnType;

use super::params::Column;
use crate::error::ApiError;

/// A time bucket of `group_by` (`created_at__month`), answered as the text of its start, as precise as the bucket
/// (`2026-03-29T14:00`, `2026-03-29`, the Monday `2026-03-23`, `2026-03`, `2026`), written by the database itself so
/// that grouping, order and answer are the same text on SQLite, PostgreSQL and MariaDB.
///
/// Buckets are cut in UTC. A named zone (`tz=Europe/Berlin`) needs the database's own zone rules with their
/// daylight-saving changes: PostgreSQL has them (`AT TIME ZONE`), so a named zone is accepted there (a name it does
/// not know is a 422 at `tz`); SQLite has none, and MariaDB / MySQL have them only with the time-zone tables
/// loaded, so there any zone but `UTC` is a 422 `unsupported_time_zone` rather than an answer in another zone.
///
/// ```
/// use viewset_core::aggregate::Bucket;
/// assert!(Bucket::ALL.contains(&Bucket::Week));
/// assert_eq!(Bucket::Month.name(), "month");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Bucket {
    /// `__hour`: `2026-03-29T14:00`.
    Hour,
    /// `__day`: `2026-03-29`.
    Day,
    /// `__week`: the Monday starting the ISO week, `2026-03-23`.
    Week,
    /// `__month`: `2026-03`.
    Month,
    /// `__year`: `2026`.
    Year,
}

impl Bucket {
    /// Every bucket, finest first.
    pub const ALL: [Bucket; 5] = [Bucket::Hour, Bucket::Day, Bucket::Week, Bucket::Month, Bucket::Year];

    /// The suffix naming it (`month` in `created_at__month`).
    ///
    /// ```
    /// use viewset_core::aggregate::Bucket;
    /// assert_eq!(Bucket::ALL.map(Bucket::name), ["hour", "day", "week", "month", "year"]);
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Bucket::Hour => "hour",
            Bucket::Day => "day",
            Bucket::Week => "week",
            Bucket::Month => "month",
            Bucket::Year => "year",
        }
    }

    /// Whether a column of `column_type` has time buckets: a date, or a date and time (with or without a zone).
    ///
    /// ```
    /// use sea_orm::sea_query::ColumnType;
    /// use viewset_core::aggregate::Bucket;
    /// assert!(Bucket::applies_to(&ColumnType::TimestampWithTimeZone) && Bucket::applies_to(&ColumnType::Date));
    /// assert!(!Bucket::applies_to(&ColumnType::Integer));
    /// ```
    pub fn applies_to(column_type: &ColumnType) -> bool {
        time_kind(column_type).is_some()
    }

    /// The bucket `name` of `column`: a 422 at `param` when the name is none of [`Bucket::ALL`] or the column holds
    /// no date or time.
    pub(crate) fn for_column(name: &str, column: &Column, param: &str) -> Result<Bucket, ApiError> {
        let Some(bucket) = Bucket::ALL.into_iter().find(|b| b.name() == name) else {
            let msg = format!("`{name}` is not a time bucket; one of: hour, day, week, month, year");
            return Err(ApiError::input(["query", param], msg, "unknown_bucket"));
        };
        if time_kind(&column.column_type).is_none() {
            let msg = format!("`{}` holds no date or time, so it has no `{name}` buckets", column.field);
            return Err(ApiError::input(["query", param], msg, "unknown_bucket"));
        }
        Ok(bucket)
    }
}

/// How a column holds time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TimeKind {
    /// A point in time (`timestamp with time zone`).
    Instant,
    /// A wall-clock date and time, read as UTC.
    Naive,
    /// A calendar date (no zone applies).
    Date,
}

fn time_kind(column_type: &ColumnType) -> Option<TimeKind> {
    match column_type {
        ColumnType::TimestampWithTimeZone => Some(TimeKind::Instant),
        ColumnType::DateTime | ColumnType::Timestamp => Some(TimeKind::Naive),
        ColumnType::Date => Some(TimeKind::Date),
        _ => None,
    }
}

/// The zone of `tz=` on `backend`: `None` for UTC (absent, `UTC` or `Etc/UTC`), a named zone on PostgreSQL; a 422
/// for a value that is no zone name, or a named zone where the database has no zone rules.
pub(crate) fn time_zone(raw: Option<&str>, backend: DbBackend) -> Result<Option<String>, ApiError> {
    let Some(raw) = raw.map(str::trim) else { return Ok(None) };
    if matches!(raw, "UTC" | "Etc/UTC") {
        return Ok(None);
    }
    let name_like = !raw.is_empty()
        && raw.len() <= 64
        && raw.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && raw.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '+'));
    if !name_like {
        let msg = "Give an IANA time zone name, e.g. `Europe/Berlin`, or `UTC`";
        return Err(ApiError::input(["query", "tz"], msg, "unknown_time_zone"));
    }
    if backend != DbBackend::Postgres {
        let msg = format!(
            "Time buckets in `{raw}` need the database's time-zone rules, which this database does not have (SQLite \
             has none; MariaDB / MySQL only with its time-zone tables loaded): group in UTC, or on PostgreSQL"
        );
        return Err(ApiError::input(["query", "tz"], msg, "unsupported_time_zone"));
    }
    Ok(Some(raw.to_string()))
}

/// The 422 at `tz` when `err` is PostgreSQL refusing the zone a request named (`zoned`): `time zone "…" not
/// recognized`, or a zone it cannot apply. The zone was checked for its shape only; PostgreSQL knows the names.
pub(crate) fn unknown_zone(err: &sea_orm::DbErr, zoned: bool) -> Option<ApiError> {
    let text = err.to_string();
    (zoned && text.contains("time zone")).then(|| {
        let msg = "The database knows no time zone of this name; give an IANA name, e.g. `Europe/Berlin`";
        ApiError::input(["query", "tz"], msg, "unknown_time_zone")
    })
}

/// `name` quoted as an identifier of `backend`.
pub(crate) fn quoted(backend: DbBackend, name: &str) -> String {
    match backend {
        DbBackend::MySql => format!("`{}`", name.replace('`', "``")),
        _ => format!("\"{}\"", name.replace('"', "\"\"")),
    }
}

/// The SQL text of `column`'s `bucket` (the column written `qualified`), in `tz` (checked by [`time_zone`]: letters,
/// digits and `/_-+` only, so it is written as a literal; the same text in the select, `GROUP BY` and `ORDER BY`).
pub(crate) fn expression(
    backend: DbBackend,
    qualified: &str,
    column: &Column,
    bucket: Bucket,
    tz: Option<&str>,
) -> String {
    let kind = time_kind(&column.column_type).unwrap_or(TimeKind::Naive);
    match backend {
        DbBackend::Postgres => {
            let zone = tz.unwrap_or("UTC");
            // A wall-clock value: the zone's time of the instant (a naive column is read as UTC).
            let local = match kind {
                TimeKind::Instant => format!("({qualified} AT TIME ZONE '{zone}')"),
                TimeKind::Naive if tz.is_some() => format!("(({qualified} AT TIME ZONE 'UTC') AT TIME ZONE '{zone}')"),
                TimeKind::Naive => qualified.to_string(),
                TimeKind::Date => format!("CAST({qualified} AS timestamp)"),
            };
            match bucket {
                Bucket::Hour => format!("to_char({local}, 'YYYY-MM-DD\"T\"HH24:00')"),
                Bucket::Day => format!("to_char({local}, 'YYYY-MM-DD')"),
                Bucket::Week => format!("to_char(date_trunc('week', {local}), 'YYYY-MM-DD')"),
                Bucket::Month => format!("to_char({local}, 'YYYY-MM')"),
                Bucket::Year => format!("to_char({local}, 'YYYY')"),
            }
        }
        DbBackend::MySql => match bucket {
            Bucket::Hour => format!("DATE_FORMAT({qualified}, '%Y-%m-%dT%H:00')"),
            Bucket::Day => format!("DATE_FORMAT({qualified}, '%Y-%m-%d')"),
            Bucket::Week => {
                format!("DATE_FORMAT(DATE_SUB({qualified}, INTERVAL WEEKDAY({qualified}) DAY), '%Y-%m-%d')")
            }
            Bucket::Month => format!("DATE_FORMAT({qualified}, '%Y-%m')"),
            Bucket::Year => format!("DATE_FORMAT({qualified}, '%Y')"),
        },
        // SQLite's date functions read the stored text (with its `+00:00`) as UTC.
        _ => match bucket {
            Bucket::Hour => format!("strftime('%Y-%m-%dT%H:00', {qualified})"),
            Bucket::Day => format!("strftime('%Y-%m-%d', {qualified})"),
            Bucket::Week => format!("date({qualified}, '-6 days', 'weekday 1')"),
            Bucket::Month => format!("strftime('%Y-%m', {qualified})"),
            Bucket::Year => format!("strftime('%Y', {qualified})"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_are_checked_for_their_shape_and_the_database() {
        assert_eq!(time_zone(None, DbBackend::Sqlite).unwrap(), None);
        assert_eq!(time_zone(Some("UTC"), DbBackend::MySql).unwrap(), None);
        assert_eq!(time_zone(Some("Europe/Berlin"), DbBackend::Postgres).unwrap().as_deref(), Some("Europe/Berlin"));
        for bad in ["", "Europe/Berlin'; --", "../etc", "x y"] {
            assert!(time_zone(Some(bad), DbBackend::Postgres).is_err(), "{bad:?}");
        }
        assert!(time_zone(Some("Europe/Berlin"), DbBackend::Sqlite).is_err());
        assert!(time_zone(Some("Europe/Berlin"), DbBackend::MySql).is_err());
    }
}
