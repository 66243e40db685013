//! A rate: how many requests a caller may make in a period (`"100/minute"`).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// The period of a [`Rate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Period {
    /// `second`
    Second,
    /// `minute`
    Minute,
    /// `hour`
    Hour,
    /// `day`
    Day,
}

impl Period {
    /// The period in seconds.
    ///
    /// ```
    /// assert_eq!(viewset_core::throttle::Period::Hour.seconds(), 3600);
    /// ```
    pub const fn seconds(self) -> u64 {
        match self {
            Period::Second => 1,
            Period::Minute => 60,
            Period::Hour => 3600,
            Period::Day => 86_400,
        }
    }

    /// The period's name as written in a rate.
    pub const fn name(self) -> &'static str {
        match self {
            Period::Second => "second",
            Period::Minute => "minute",
            Period::Hour => "hour",
            Period::Day => "day",
        }
    }

    /// The period written as `name` (`second`, `minute`, `hour`, `day`; also their first letter and plural).
    pub fn parse(name: &str) -> Option<Period> {
        match name {
            "s" | "sec" | "second" | "seconds" => Some(Period::Second),
            "m" | "min" | "minute" | "minutes" => Some(Period::Minute),
            "h" | "hour" | "hours" => Some(Period::Hour),
            "d" | "day" | "days" => Some(Period::Day),
            _ => None,
        }
    }
}

/// `count` requests per `period`, as a GCRA: a burst of up to `count` at once, then one request every
/// `period / count` (a caller who waits a whole period has its whole budget again).
///
/// ```
/// use viewset_core::throttle::{Period, Rate};
/// let rate: Rate = "100/minute".parse().unwrap();
/// assert_eq!(rate, Rate::new(100, Period::Minute));
/// assert_eq!(rate.to_string(), "100/minute");
/// assert_eq!(rate.interval().as_millis(), 600);
/// assert!("0/second".parse::<Rate>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rate {
    /// Requests per period (at least 1, at most [`Rate::MAX_COUNT`]).
    pub count: u32,
    /// The period.
    pub period: Period,
}

impl Rate {
    /// The largest count a rate may have: beyond it a "limit" no longer limits (and the GCRA's interval would be
    /// below a microsecond for a rate per second).
    pub const MAX_COUNT: u32 = 1_000_000;

    /// `count` per `period` (the derive checks the count at compile time; see [`Rate::check`]).
    pub const fn new(count: u32, period: Period) -> Rate {
        Rate { count, period }
    }

    /// The time one request uses of the budget: `period / count`.
    pub fn interval(self) -> Duration {
        Duration::from_secs(self.period.seconds()) / self.count.max(1)
    }

    /// The window in seconds (the period), as the `RateLimit-Policy` header's `w`.
    pub fn window_seconds(self) -> u64 {
        self.period.seconds()
    }

    /// Why `count` cannot be a rate's count, if it cannot.
    ///
    /// ```
    /// assert!(viewset_core::throttle::Rate::check(0).is_err());
    /// assert!(viewset_core::throttle::Rate::check(10).is_ok());
    /// ```
    pub fn check(count: u64) -> Result<u32, RateError> {
        match count {
            0 => Err(RateError::Zero),
            n if n > u64::from(Rate::MAX_COUNT) => Err(RateError::TooLarge(n)),
            n => Ok(n as u32),
        }
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.count, self.period.name())
    }
}

impl FromStr for Rate {
    type Err = RateError;

    fn from_str(text: &str) -> Result<Rate, RateError> {
        let (count, period) = text.trim().split_once('/').ok_or(RateError::Shape)?;
        let count: u64 = count.trim().parse().map_err(|_| RateError::Shape)?;
        let period = Period::parse(period.trim()).ok_or_else(|| RateError::Period(period.trim().to_string()))?;
        Ok(Rate::new(Rate::check(count)?, period))
    }
}

/// Why a text is not a [`Rate`].
///
/// ```
/// let err = "ten/minute".parse::<viewset_core::throttle::Rate>().unwrap_err();
/// assert!(err.to_string().contains("N/second"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RateError {
    /// Not `N/period`.
    Shape,
    /// An unknown period.
    Period(String),
    /// `0/...`: nothing would ever be admitted.
    Zero,
    /// More than [`Rate::MAX_COUNT`] per period.
    TooLarge(u64),
}

impl fmt::Display for RateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RateError::Shape => write!(f, "a rate is written `N/second`, `N/minute`, `N/hour` or `N/day`"),
            RateError::Period(p) => write!(f, "unknown period `{p}`: use second, minute, hour or day"),
            RateError::Zero => write!(f, "a rate of 0 would refuse every request: remove the throttle or deny access"),
            RateError::TooLarge(n) => write!(
                f,
                "{n} per period is not a limit (at most {} per period): leave the throttle out instead",
                Rate::MAX_COUNT
            ),
        }
    }
}

impl std::error::Error for RateError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_period_and_refuses_nonsense() {
        assert_eq!("5/s".parse::<Rate>().unwrap(), Rate::new(5, Period::Second));
        assert_eq!(" 2 / hours ".parse::<Rate>().unwrap(), Rate::new(2, Period::Hour));
        assert_eq!("1/day".parse::<Rate>().unwrap().interval(), Duration::from_secs(86_400));
        assert_eq!("1000000000/day".parse::<Rate>(), Err(RateError::TooLarge(1_000_000_000)));
        assert_eq!("0/second".parse::<Rate>(), Err(RateError::Zero));
        assert_eq!("-1/second".parse::<Rate>(), Err(RateError::Shape));
        assert_eq!("10/fortnight".parse::<Rate>(), Err(RateError::Period("fortnight".into())));
        assert_eq!("10".parse::<Rate>(), Err(RateError::Shape));
    }
}
