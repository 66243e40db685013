//! Buckets in Redis, shared by every instance: one atomic script per check, on Redis's clock (instances whose
//! clocks disagree still count one budget), each key expiring when its bucket is full again.

use std::time::Duration;

use redis::aio::ConnectionManager;
use tokio::sync::OnceCell;

use super::bucket::Outcome;
use super::declared::Rule;

/// GCRA over every key in turn, up to the first refusal. `ARGV` holds each rule's interval and burst (in
/// microseconds and cells). Replies two numbers per rule checked: `remaining, reset_µs` when counted,
/// `-1, retry_after_µs` when refused (the last pair). Times are microseconds of `TIME`; a bucket's value is its
/// theoretical arrival time, written as an integer (Lua's default number format would round it).
const GCRA: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local out = {}
for i, key in ipairs(KEYS) do
  local interval = tonumber(ARGV[2 * i - 1])
  local burst = tonumber(ARGV[2 * i])
  local tat = tonumber(redis.call('GET', key)) or now
  if tat < now then tat = now end
  local new_tat = tat + interval
  local allow_at = new_tat - interval * burst
  if allow_at > now then
    table.insert(out, -1)
    table.insert(out, allow_at - now)
    return out
  end
  redis.call('SET', key, string.format('%.0f', new_tat), 'PX', math.ceil((new_tat - now) / 1000) + 1)
  table.insert(out, math.floor((now - allow_at) / interval))
  table.insert(out, new_tat - now)
end
return out
";

/// The prefix of every key this module writes.
const PREFIX: &str = "viewset:throttle:";

/// Redis buckets: a client, its connection once made (remade by the manager after a failure) and the script.
pub(crate) struct RedisBuckets {
    client: redis::Client,
    connection: OnceCell<ConnectionManager>,
    script: redis::Script,
    timeout: Duration,
}

impl std::fmt::Debug for RedisBuckets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisBuckets").field("server", &self.client.get_connection_info().addr()).finish()
    }
}

impl RedisBuckets {
    /// Buckets on the server at `url` (`redis://host:port/db`); no connection is made until the first check, so an
    /// application starts while Redis is down.
    pub(crate) fn new(url: &str, timeout: Duration) -> Result<RedisBuckets, String> {
        let client = redis::Client::open(url).map_err(|e| format!("invalid Redis URL `{url}`: {e}"))?;
        Ok(RedisBuckets { client, connection: OnceCell::new(), script: redis::Script::new(GCRA), timeout })
    }

    pub(crate) async fn check(&self, rules: &[Rule]) -> Result<Vec<Outcome>, String> {
        match tokio::time::timeout(self.timeout, self.run(rules)).await {
            Ok(result) => result,
            Err(_) => Err(format!("Redis did not answer within {} ms", self.timeout.as_millis())),
        }
    }

    async fn run(&self, rules: &[Rule]) -> Result<Vec<Outcome>, String> {
        let connection = self
            .connection
            .get_or_try_init(|| ConnectionManager::new(self.client.clone()))
            .await
            .map_err(|e| format!("cannot connect to Redis: {e}"))?;
        let mut invocation = self.script.prepare_invoke();
        for rule in rules {
            let interval = rule.rate.interval().as_micros().max(1) as u64;
            invocation.key(format!("{PREFIX}{}", rule.key)).arg(interval).arg(rule.rate.count);
        }
        let reply: Vec<i64> = invocation
            .invoke_async(&mut connection.clone())
            .await
            .map_err(|e| format!("Redis refused the check: {e}"))?;
        Ok(reply
            .chunks_exact(2)
            .map(|pair| match pair {
                [-1, wait] => Outcome::Denied { retry_after: micros(*wait) },
                [remaining, reset] => Outcome::Allowed { remaining: (*remaining).max(0) as u32, reset: micros(*reset) },
                _ => unreachable!("chunks of two"),
            })
            .collect())
    }
}

fn micros(value: i64) -> Duration {
    Duration::from_micros(value.max(0) as u64)
}
