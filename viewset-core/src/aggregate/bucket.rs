//! Time buckets (`group_by=created_at__month`) and the time zone they are cut in (`tz=`).
//!
//! A bucket is answered as the text of its start in ISO 8601, as precise as the bucket: `2026-03-29T14:00` (hour),
//! `2026-03-29` (day), `2026-03-23` (week: its Monday), `2026-03` (month), `2026` (year). Each database writes that
//! text itself (`to_char` on PostgreSQL, `strftime` / `date` on SQLite, `DATE_FORMAT` on MariaDB / MySQL), so the
//! grouping, the ordering and the answer are the same text on all three.
//!
//! Buckets are cut in UTC, or in a named zone (`tz=Europe/Berlin`) with its daylight-saving changes, the same
//! buckets on every database: PostgreSQL applies the zone itself (`AT TIME ZONE`); on SQLite and MariaDB / MySQL
//! the zone's offsets are written into the statement ([`super::zone`]). A name the time zone database does not
//! know is a 422 at `tz`.

use sea_orm::DbBackend;
use sea_orm::sea_query::ColumnType;

use super::params::Column;
use super::zone::{self, Zone};
use crate::error::ApiError;

/// A time bucket of `group_by` (`created_at__month`), answered as the text of its start, as precise as the bucket
/// (`2026-03-29T14:00`, `2026-03-29`, the Monday `2026-03-23`, `2026-03`, `2026`), written by the database itself so
/// that grouping, order and answer are the same text on SQLite, PostgreSQL and MariaDB.
///
/// Buckets are cut in UTC, or in a named zone (`tz=Europe/Berlin`) with its daylight-saving changes, the same on
/// SQLite, PostgreSQL and MariaDB / MySQL (a name the IANA time zone database does not know is a 422 at `tz`).
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

/// The zone of `tz=`: `None` for UTC (absent, `UTC` or `Etc/UTC`); a 422 for a value that is no zone name or a
/// name the time zone database does not know.
pub(crate) fn time_zone(raw: Option<&str>) -> Result<Option<Zone>, ApiError> {
    let Some(raw) = raw.map(str::trim) else { return Ok(None) };
    if matches!(raw, "UTC" | "Etc/UTC") {
        return Ok(None);
    }
    // The shape first: the name is written into the statement as a literal.
    let name_like = !raw.is_empty()
        && raw.len() <= 64
        && raw.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && raw.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '+'));
    if !name_like {
        let msg = "Give an IANA time zone name, e.g. `Europe/Berlin`, or `UTC`";
        return Err(ApiError::input(["query", "tz"], msg, "unknown_time_zone"));
    }
    Zone::named(raw).map(Some).ok_or_else(zone::unknown)
}

/// The 422 at `tz` when `err` is PostgreSQL refusing the zone a request named (`zoned`): `time zone "…" not
/// recognized` (its zone database is older than the one the name was checked against), or a zone it cannot apply.
pub(crate) fn unknown_zone(err: &sea_orm::DbErr, zoned: bool) -> Option<ApiError> {
    (zoned && err.to_string().contains("time zone")).then(zone::unknown)
}

/// `name` quoted as an identifier of `backend`.
pub(crate) fn quoted(backend: DbBackend, name: &str) -> String {
    match backend {
        DbBackend::MySql => format!("`{}`", name.replace('`', "``")),
        _ => format!("\"{}\"", name.replace('"', "\"\"")),
    }
}

/// The SQL text of `column`'s `bucket` (the column written `qualified`), in `tz` (checked by [`time_zone`]: its name
/// is letters, digits and `/_-+` only, so it is written as a literal).
pub(crate) fn expression(
    backend: DbBackend,
    qualified: &str,
    column: &Column,
    bucket: Bucket,
    tz: Option<&Zone>,
) -> String {
    let kind = time_kind(&column.column_type).unwrap_or(TimeKind::Naive);
    // A calendar date has no zone.
    let tz = tz.filter(|_| kind != TimeKind::Date);
    match backend {
        DbBackend::Postgres => {
            let zone = tz.map_or("UTC", |z| z.name.as_str());
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
        DbBackend::MySql => {
            // The column holds UTC (the session's zone, `store/mysql.rs`); the zone's offset is added to it.
            let local = match tz {
                Some(zone) => format!("DATE_ADD({qualified}, INTERVAL ({}) SECOND)", zone.offset_sql(qualified, true)),
                None => qualified.to_string(),
            };
            match bucket {
                Bucket::Hour => format!("DATE_FORMAT({local}, '%Y-%m-%dT%H:00')"),
                Bucket::Day => format!("DATE_FORMAT({local}, '%Y-%m-%d')"),
                Bucket::Week => format!("DATE_FORMAT(DATE_SUB({local}, INTERVAL WEEKDAY({local}) DAY), '%Y-%m-%d')"),
                Bucket::Month => format!("DATE_FORMAT({local}, '%Y-%m')"),
                Bucket::Year => format!("DATE_FORMAT({local}, '%Y')"),
            }
        }
        // SQLite's date functions read the stored text (with its `+00:00`) as UTC.
        _ => {
            let format = |local: &str, modifier: &str| match bucket {
                Bucket::Hour => format!("strftime('%Y-%m-%dT%H:00', {local}{modifier})"),
                Bucket::Day => format!("strftime('%Y-%m-%d', {local}{modifier})"),
                Bucket::Week => format!("date({local}{modifier}, '-6 days', 'weekday 1')"),
                Bucket::Month => format!("strftime('%Y-%m', {local}{modifier})"),
                Bucket::Year => format!("strftime('%Y', {local}{modifier})"),
            };
            match tz {
                // The instant in epoch seconds, computed once per row by a subquery of one column (`viewset_t`)
                // rather than once per comparison of the offset's `CASE`; then the local time is that plus the offset.
                Some(zone) => {
                    let local = format!("viewset_t + ({})", zone.offset_sql("viewset_t", false));
                    let instant = format!("CAST(strftime('%s', {qualified}) AS INTEGER)");
                    format!("(SELECT {} FROM (SELECT {instant} AS viewset_t))", format(&local, ", 'unixepoch'"))
                }
                None => format(qualified, ""),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_are_checked_for_their_shape_and_their_name() {
        assert!(time_zone(None).unwrap().is_none());
        assert!(time_zone(Some("UTC")).unwrap().is_none());
        assert_eq!(time_zone(Some("Europe/Berlin")).unwrap().unwrap().name, "Europe/Berlin");
        for bad in ["", "Europe/Berlin'; --", "../etc", "x y", "Mars/Olympus_Mons"] {
            assert!(time_zone(Some(bad)).is_err(), "{bad:?}");
        }
    }
}
