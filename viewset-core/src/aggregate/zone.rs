//! The named time zone of `tz=` and its offsets from UTC, written as SQL for the databases that have no zone rules.
//!
//! PostgreSQL applies a named zone itself (`AT TIME ZONE`). SQLite has no zone database, and MariaDB / MySQL have
//! one only when its time-zone tables are loaded; for those two the zone's rules come from the IANA time zone
//! database that [`jiff`] reads (the system's `/usr/share/zoneinfo`, else the copy built into the binary): its
//! offsets from 1900 to 2100, daylight-saving changes included, become a `CASE` over the instant that a binary
//! search of the changes would make (depth ≈ log₂ of their number, 9 comparisons for `Europe/Berlin`), and the
//! bucket is cut in the local time `instant + offset`. Before 1900 the zone's offset of 1900 applies, after 2100
//! the last one before it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use jiff::Timestamp;
use jiff::tz::TimeZone;

use crate::error::ApiError;

/// 1900-01-01T00:00:00Z and 2100-01-01T00:00:00Z: the span whose offset changes are written out.
const FROM: i64 = -2_208_988_800;
const UNTIL: i64 = 4_102_444_800;

/// A named zone other than UTC, checked against the time zone database.
#[derive(Debug, Clone)]
pub(crate) struct Zone {
    /// The zone's name as the database writes it (`Europe/Berlin`).
    pub(crate) name: String,
    offsets: Arc<Offsets>,
}

/// The zone's offsets (seconds east of UTC): `first` until the first change, then each `(since, offset)`.
#[derive(Debug)]
struct Offsets {
    first: i32,
    changes: Vec<(i64, i32)>,
}

impl Zone {
    /// The zone named `name` (letters, digits and `/_-+`, checked by the caller), or `None` when the time zone
    /// database knows no such name. Each zone's offsets are computed once per process.
    pub(crate) fn named(name: &str) -> Option<Zone> {
        static KNOWN: OnceLock<Mutex<HashMap<String, Arc<Offsets>>>> = OnceLock::new();
        let tz = TimeZone::get(name).ok()?;
        // Keyed by the database's own spelling, so differently cased requests share one entry.
        let canonical = tz.iana_name().unwrap_or(name).to_string();
        let mut known = KNOWN.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
        let offsets = known.entry(canonical.clone()).or_insert_with(|| Arc::new(Offsets::of(&tz))).clone();
        Some(Zone { name: canonical, offsets })
    }

    /// The zone's offset in seconds at the instant `instant` (an SQL expression of `backend`'s: epoch seconds on
    /// SQLite, a UTC `DATETIME` on MariaDB / MySQL), as one SQL expression.
    pub(crate) fn offset_sql(&self, instant: &str, mysql: bool) -> String {
        let Offsets { first, changes } = &*self.offsets;
        let mut sql = String::new();
        write_node(&mut sql, instant, mysql, *first, changes);
        sql
    }
}

impl Offsets {
    fn of(tz: &TimeZone) -> Offsets {
        let from = Timestamp::from_second(FROM).expect("1900 is a timestamp");
        let first = tz.to_offset(from).seconds();
        let mut changes = Vec::new();
        let mut current = first;
        for transition in tz.following(from) {
            let since = transition.timestamp().as_second();
            if since >= UNTIL {
                break;
            }
            let offset = transition.offset().seconds();
            // A change of name or of daylight-saving flag alone keeps the offset: nothing to write.
            if offset != current {
                changes.push((since, offset));
                current = offset;
            }
        }
        Offsets { first, changes }
    }
}

/// `CASE WHEN instant < since THEN … ELSE … END` over `changes` split in halves: the offset in force before the
/// first change is `before`.
fn write_node(sql: &mut String, instant: &str, mysql: bool, before: i32, changes: &[(i64, i32)]) {
    use std::fmt::Write;
    if changes.is_empty() {
        let _ = write!(sql, "{before}");
        return;
    }
    let middle = changes.len() / 2;
    let (since, offset) = changes[middle];
    let _ = write!(sql, "CASE WHEN {instant} < ");
    if mysql {
        let at = Timestamp::from_second(since).expect("a change between 1900 and 2100");
        let _ = write!(sql, "'{}'", at.strftime("%Y-%m-%d %H:%M:%S"));
    } else {
        let _ = write!(sql, "{since}");
    }
    sql.push_str(" THEN ");
    write_node(sql, instant, mysql, before, &changes[..middle]);
    sql.push_str(" ELSE ");
    write_node(sql, instant, mysql, offset, &changes[middle + 1..]);
    sql.push_str(" END");
}

/// The 422 at `tz` for a name the time zone database does not know.
pub(crate) fn unknown() -> ApiError {
    let msg = "No time zone has this name; give an IANA name, e.g. `Europe/Berlin`, or `UTC`";
    ApiError::input(["query", "tz"], msg, "unknown_time_zone")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The offset the SQL would choose for `at`, evaluated as the `CASE` reads.
    fn chosen(zone: &Zone, at: i64) -> i32 {
        let Offsets { first, changes } = &*zone.offsets;
        changes.iter().take_while(|(since, _)| *since <= at).last().map_or(*first, |(_, offset)| *offset)
    }

    #[test]
    fn berlin_changes_twice_a_year_and_the_case_is_a_balanced_search() {
        let zone = Zone::named("europe/berlin").expect("a zone");
        assert_eq!(zone.name, "Europe/Berlin");
        // 2026-03-29 00:30Z is 01:30 CET; 01:30Z is 03:30 CEST; 2026-10-25 00:30Z and 01:30Z are both 02:30 local.
        let at = |text: &str| text.parse::<Timestamp>().unwrap().as_second();
        assert_eq!(chosen(&zone, at("2026-03-29T00:30:00Z")), 3600);
        assert_eq!(chosen(&zone, at("2026-03-29T01:30:00Z")), 7200);
        assert_eq!(chosen(&zone, at("2026-10-25T00:30:00Z")), 7200);
        assert_eq!(chosen(&zone, at("2026-10-25T01:30:00Z")), 3600);
        let sql = zone.offset_sql("t", false);
        let changes = zone.offsets.changes.len();
        assert!(changes > 200, "{changes} changes from 1900 to 2100");
        assert_eq!(sql.matches("CASE").count(), changes, "one comparison per change");
        // The search is balanced: no path nests more than ⌈log₂(changes + 1)⌉ cases.
        let (mut depth, mut deepest) = (0usize, 0usize);
        for word in sql.split_whitespace() {
            match word {
                "CASE" => depth += 1,
                "END" => depth -= 1,
                _ => {}
            }
            deepest = deepest.max(depth);
        }
        assert!(deepest <= (changes + 1).ilog2() as usize + 1, "{deepest}");
        assert!(zone.offset_sql("x", true).contains("'2026-03-29 01:00:00'"), "MariaDB compares UTC date-times");
    }

    #[test]
    fn a_zone_keeps_its_last_offset_and_unknown_names_are_none() {
        let kolkata = Zone::named("Asia/Kolkata").expect("a zone");
        assert_eq!(chosen(&kolkata, 1_800_000_000), 19_800, "+05:30 since 1945");
        assert!(Zone::named("Mars/Olympus_Mons").is_none());
    }
}
