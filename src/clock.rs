//! Time as a port.
//!
//! Decision functions never read the system clock themselves: they take a
//! [`Clock`], so tests (and hosts replaying decisions) control time exactly.

use std::fmt::Debug;
use std::sync::Arc;

use chrono::{DateTime, TimeDelta, Utc};
use parking_lot::Mutex;

/// A source of the current UTC time.
///
/// Implementations must be cheap to call and safe to share across threads.
pub trait Clock: Send + Sync + Debug {
    /// The current time.
    fn now(&self) -> DateTime<Utc>;

    /// The current time as nanoseconds since the Unix epoch (saturating).
    /// Hot paths that only store a timestamp use this; implementations may
    /// override it to skip the calendar conversion.
    fn now_nanos(&self) -> i64 {
        let now = self.now();
        now.timestamp_nanos_opt().unwrap_or(if now.timestamp() < 0 {
            i64::MIN
        } else {
            i64::MAX
        })
    }
}

impl<C: Clock + ?Sized> Clock for Arc<C> {
    fn now(&self) -> DateTime<Utc> {
        (**self).now()
    }

    fn now_nanos(&self) -> i64 {
        (**self).now_nanos()
    }
}

/// The operating system's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }

    fn now_nanos(&self) -> i64 {
        match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            Ok(since) => i64::try_from(since.as_nanos()).unwrap_or(i64::MAX),
            Err(before) => i64::try_from(before.duration().as_nanos()).map_or(i64::MIN, |n| -n),
        }
    }
}

/// Converts nanoseconds since the Unix epoch to a time.
#[must_use]
pub fn from_unix_nanos(nanos: i64) -> DateTime<Utc> {
    DateTime::<Utc>::from_timestamp_nanos(nanos)
}

/// A clock that only moves when told to; clones share the same time.
///
/// ```
/// use chrono::TimeDelta;
/// use cleveragents::{Clock, ManualClock};
///
/// let clock = ManualClock::default();
/// let start = clock.now();
/// clock.advance(TimeDelta::seconds(90));
/// assert_eq!((clock.now() - start).num_seconds(), 90);
/// ```
#[derive(Debug, Clone)]
pub struct ManualClock {
    now: Arc<Mutex<DateTime<Utc>>>,
}

impl ManualClock {
    /// A clock stopped at `start`.
    #[must_use]
    pub fn new(start: DateTime<Utc>) -> Self {
        Self {
            now: Arc::new(Mutex::new(start)),
        }
    }

    /// Moves the clock forward (or backward, for a negative delta).
    pub fn advance(&self, by: TimeDelta) {
        let mut now = self.now.lock();
        *now = now.checked_add_signed(by).unwrap_or(*now);
    }

    /// Sets the clock to `to`.
    pub fn set(&self, to: DateTime<Utc>) {
        *self.now.lock() = to;
    }
}

impl Default for ManualClock {
    /// Stopped at 2025-01-01T00:00:00Z, so tests print stable timestamps.
    fn default() -> Self {
        Self::new(DateTime::<Utc>::from_timestamp(1_735_689_600, 0).unwrap_or_default())
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.now.lock()
    }
}

/// Formats a time as the specification's ISO-8601 UTC form with millisecond precision,
/// e.g. `2025-01-01T00:00:00.000Z`.
#[must_use]
pub fn iso8601(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nanos_agree_with_now() {
        let clock = ManualClock::default();
        assert_eq!(from_unix_nanos(clock.now_nanos()), clock.now());
        let system = SystemClock;
        let (a, b) = (
            system.now_nanos(),
            system.now().timestamp_nanos_opt().unwrap(),
        );
        assert!((b - a).abs() < 1_000_000_000);
    }

    #[test]
    fn manual_clock_is_shared_between_clones() {
        let a = ManualClock::default();
        let b = a.clone();
        a.advance(TimeDelta::milliseconds(1500));
        assert_eq!(iso8601(b.now()), "2025-01-01T00:00:01.500Z");
    }
}
