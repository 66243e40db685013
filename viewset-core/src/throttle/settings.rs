//! A [`Throttle`] from environment variables.

use super::{OnStoreError, Throttle};

impl Throttle {
    /// The throttle the environment asks for, `None` when it sets none of its variables:
    ///
    /// | variable | meaning |
    /// |---|---|
    /// | `SERVICE_THROTTLE_ANON`, `SERVICE_THROTTLE_USER`, `SERVICE_THROTTLE_STAFF` | default rates (`100/minute`) |
    /// | `SERVICE_THROTTLE_REDIS` | buckets in Redis (`redis://127.0.0.1:6379`); unset: in this process |
    /// | `SERVICE_THROTTLE_ON_REDIS_ERROR` | `open` (default) or `closed` |
    /// | `SERVICE_THROTTLE_HEADERS` | `every` adds the `RateLimit` headers to every answer |
    /// | `SERVICE_TRUSTED_PROXIES` | comma-separated addresses or networks allowed to name the client |
    ///
    /// ```
    /// use viewset_core::throttle::Throttle;
    /// let vars = [("SERVICE_THROTTLE_ANON".to_string(), "5/second".to_string())];
    /// let throttle = Throttle::from_vars(vars).unwrap().unwrap();
    /// assert_eq!(throttle.defaults().anon.unwrap().to_string(), "5/second");
    /// assert!(Throttle::from_vars([("SERVICE_THROTTLE_USER".into(), "0/day".into())]).is_err());
    /// assert!(Throttle::from_vars(Vec::<(String, String)>::new()).unwrap().is_none());
    /// ```
    pub fn from_vars<I: IntoIterator<Item = (String, String)>>(vars: I) -> Result<Option<Throttle>, String> {
        let mut throttle = Throttle::new();
        let mut any = false;
        for (key, value) in vars {
            let value = value.trim();
            if !key.starts_with("SERVICE_THROTTLE_") && key != "SERVICE_TRUSTED_PROXIES" || value.is_empty() {
                continue;
            }
            let rate = || value.parse().map_err(|e| format!("{key}={value}: {e}"));
            throttle = match key.as_str() {
                "SERVICE_THROTTLE_ANON" => throttle.anon(rate()?),
                "SERVICE_THROTTLE_USER" => throttle.user(rate()?),
                "SERVICE_THROTTLE_STAFF" => throttle.staff(rate()?),
                "SERVICE_THROTTLE_REDIS" => redis(throttle, value)?,
                "SERVICE_THROTTLE_ON_REDIS_ERROR" => throttle.on_store_error(match value {
                    "open" => OnStoreError::FailOpen,
                    "closed" => OnStoreError::FailClosed,
                    other => return Err(format!("{key}={other}: use `open` or `closed`")),
                }),
                "SERVICE_THROTTLE_HEADERS" if value == "every" => throttle.headers_on_every_answer(),
                "SERVICE_TRUSTED_PROXIES" => throttle.trusted_proxies(value.split(','))?,
                _ => return Err(format!("{key} is not a throttle setting (see viewset_core::throttle)")),
            };
            any = true;
        }
        Ok(any.then_some(throttle))
    }

    /// [`Throttle::from_vars`] of the process environment.
    pub fn from_env() -> Result<Option<Throttle>, String> {
        Throttle::from_vars(std::env::vars())
    }
}

#[cfg(feature = "redis")]
fn redis(throttle: Throttle, url: &str) -> Result<Throttle, String> {
    throttle.redis(url)
}

#[cfg(not(feature = "redis"))]
fn redis(_: Throttle, _: &str) -> Result<Throttle, String> {
    Err("SERVICE_THROTTLE_REDIS needs viewset-core's `redis` feature".into())
}
