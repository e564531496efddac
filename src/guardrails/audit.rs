//! The guardrail audit trail: bounded, append-only, hash-chained.
//!
//! Every entry carries a sequence number (never reused) and, when the chain is
//! on, the SHA-256 hash of its content and of its predecessor's hash. When the
//! oldest entry is evicted, its hash becomes the trail's *anchor*, so
//! [`GuardrailAuditTrail::verify`] can prove the retained window complete and
//! unaltered: a changed, removed or reordered entry breaks the chain.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::budget::BudgetLevel;
use crate::money::Usd;
use crate::string_enum::string_enum;

string_enum!(
    /// What kind of enforcement an audit entry records.
    GuardrailEventType, "guardrail event type" {
        /// A step was within the step limit.
        StepAllowed => "step_allowed",
        /// A step was over the step limit.
        StepBlocked => "step_blocked",
        /// A cost fit the budget (and was recorded).
        BudgetAllowed => "budget_allowed",
        /// A cost did not fit the budget.
        BudgetBlocked => "budget_blocked",
        /// Within the wall-clock limit.
        TimeAllowed => "time_allowed",
        /// Over the wall-clock limit.
        TimeBlocked => "time_blocked",
        /// Within the per-invocation tool-call limit.
        ActorLimitAllowed => "actor_limit_allowed",
        /// Over the per-invocation tool-call limit.
        ActorLimitBlocked => "actor_limit_blocked",
        /// A retry within the retry limit.
        RetryAllowed => "retry_allowed",
        /// A retry over the retry limit.
        RetryBlocked => "retry_blocked",
        /// A confirmation was granted (or none was needed).
        ConfirmationGranted => "confirmation_granted",
        /// An operation needs a human's confirmation.
        ConfirmationRequired => "confirmation_required",
    }
);

string_enum!(
    /// The outcome an audit entry records.
    GuardrailResult, "guardrail result" {
        /// Allowed.
        Allowed => "allowed",
        /// Denied.
        Denied => "denied",
    }
);

/// Structured context of an audit entry (serialized as an object of the
/// fields that are set).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct AuditContext {
    /// The amount asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<Usd>,
    /// Spent before (or, when allowed, including) this decision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spent: Option<Usd>,
    /// The money limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<Usd>,
    /// The budget level concerned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<BudgetLevel>,
    /// The count checked (steps, calls, retries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// The count limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<u64>,
    /// Elapsed wall-clock time, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_ms: Option<u64>,
    /// The wall-clock limit, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_ms: Option<u64>,
    /// The operation (confirmations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
}

/// A SHA-256 digest (all zeros when the chain is off).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AuditHash([u8; 32]);

impl AuditHash {
    /// The all-zero hash: the predecessor of the first entry.
    pub const ZERO: Self = Self([0; 32]);

    /// The digest bytes.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Display for AuditHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl fmt::Debug for AuditHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AuditHash({self})")
    }
}

impl Serialize for AuditHash {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut hex = [0_u8; 64];
        for (i, b) in self.0.iter().enumerate() {
            let digits = b"0123456789abcdef";
            if let (Some(hi), Some(lo), Some(slot)) = (
                digits.get(usize::from(b >> 4)),
                digits.get(usize::from(b & 0xf)),
                hex.get_mut(i * 2..i * 2 + 2),
            ) {
                slot.copy_from_slice(&[*hi, *lo]);
            }
        }
        s.serialize_str(std::str::from_utf8(&hex).unwrap_or_default())
    }
}

impl<'de> Deserialize<'de> for AuditHash {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = Cow::<str>::deserialize(d)?;
        let bytes = text.as_bytes();
        if bytes.len() != 64 {
            return Err(serde::de::Error::custom(format!(
                "a hash is 64 hexadecimal digits, got {} characters",
                text.chars().count()
            )));
        }
        let digit = |c: u8| match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        };
        let mut out = [0_u8; 32];
        for (slot, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
            match pair {
                [hi, lo] => match (digit(*hi), digit(*lo)) {
                    (Some(hi), Some(lo)) => *slot = hi << 4 | lo,
                    _ => return Err(serde::de::Error::custom("a hash is lowercase hexadecimal")),
                },
                _ => return Err(serde::de::Error::custom("a hash is 64 hexadecimal digits")),
            }
        }
        Ok(Self(out))
    }
}

/// One enforcement decision. Immutable once appended: fields are read
/// through accessors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GuardrailAuditEntry {
    sequence: u64,
    // Nanoseconds since the Unix epoch: cheap to take on the hot path;
    // serialized as an ISO-8601 UTC string.
    #[serde(with = "unix_nanos_as_iso")]
    timestamp: i64,
    event_type: GuardrailEventType,
    guard_name: Cow<'static, str>,
    result: GuardrailResult,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    context: AuditContext,
    prev_hash: AuditHash,
    hash: AuditHash,
}

impl GuardrailAuditEntry {
    /// Position in the plan's trail; never reused, even after eviction.
    #[must_use]
    pub const fn sequence(&self) -> u64 {
        self.sequence
    }
    /// When the decision was made.
    #[must_use]
    pub fn timestamp(&self) -> DateTime<Utc> {
        crate::clock::from_unix_nanos(self.timestamp)
    }
    /// What kind of enforcement.
    #[must_use]
    pub const fn event_type(&self) -> GuardrailEventType {
        self.event_type
    }
    /// The guard evaluated, e.g. `max_steps`.
    #[must_use]
    pub fn guard_name(&self) -> &str {
        &self.guard_name
    }
    /// Allowed or denied.
    #[must_use]
    pub const fn result(&self) -> GuardrailResult {
        self.result
    }
    /// Why (always set for denials).
    #[must_use]
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }
    /// Structured context.
    #[must_use]
    pub const fn context(&self) -> &AuditContext {
        &self.context
    }
    /// The predecessor's hash (the anchor or zero for the first).
    #[must_use]
    pub const fn prev_hash(&self) -> AuditHash {
        self.prev_hash
    }
    /// This entry's hash.
    #[must_use]
    pub const fn hash(&self) -> AuditHash {
        self.hash
    }

    /// The hash of this entry's content chained to `prev`.
    #[cfg(feature = "audit-chain")]
    fn compute_hash(&self, prev: AuditHash) -> AuditHash {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        // Length-prefixed fields in a fixed order: unambiguous and allocation-free.
        let mut field = |bytes: &[u8]| {
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        };
        field(b"cleveragents.audit.v1");
        field(&self.sequence.to_le_bytes());
        field(&self.timestamp.to_le_bytes());
        field(self.event_type.as_str().as_bytes());
        field(self.guard_name.as_bytes());
        field(self.result.as_str().as_bytes());
        field(
            self.reason
                .as_deref()
                .map_or(b"\xff".as_slice(), str::as_bytes),
        );
        let c = &self.context;
        let opt = |v: Option<i64>| {
            v.map_or([0xff; 9], |n| {
                let mut out = [0_u8; 9];
                if let Some(tail) = out.get_mut(1..) {
                    tail.copy_from_slice(&n.to_le_bytes());
                }
                out
            })
        };
        let as_i64 = |v: Option<u64>| v.map(|n| i64::from_le_bytes(n.to_le_bytes()));
        for v in [
            c.amount.map(Usd::nanos),
            c.spent.map(Usd::nanos),
            c.limit.map(Usd::nanos),
            as_i64(c.count),
            as_i64(c.max),
            as_i64(c.elapsed_ms),
            as_i64(c.limit_ms),
        ] {
            field(&opt(v));
        }
        field(c.level.map_or("", BudgetLevel::as_str).as_bytes());
        field(
            c.operation
                .as_deref()
                .map_or(b"\xff".as_slice(), str::as_bytes),
        );
        field(prev.as_bytes());
        AuditHash(h.finalize().into())
    }

    #[cfg(not(feature = "audit-chain"))]
    fn compute_hash(&self, _prev: AuditHash) -> AuditHash {
        AuditHash::ZERO
    }
}

/// What to record: everything but the sequence, timestamp and hashes.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    pub(crate) event_type: GuardrailEventType,
    pub(crate) guard_name: &'static str,
    pub(crate) reason: Option<String>,
    pub(crate) context: AuditContext,
}

impl Record {
    pub(crate) fn result(&self) -> GuardrailResult {
        match self.event_type {
            GuardrailEventType::StepBlocked
            | GuardrailEventType::BudgetBlocked
            | GuardrailEventType::TimeBlocked
            | GuardrailEventType::ActorLimitBlocked
            | GuardrailEventType::RetryBlocked
            | GuardrailEventType::ConfirmationRequired => GuardrailResult::Denied,
            _ => GuardrailResult::Allowed,
        }
    }
}

mod unix_nanos_as_iso {
    use chrono::{DateTime, Utc};
    use serde::{Deserialize, Deserializer, Serialize, Serializer, de::Error as _};

    pub(super) fn serialize<S: Serializer>(nanos: &i64, s: S) -> Result<S::Ok, S::Error> {
        crate::clock::from_unix_nanos(*nanos).serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
        DateTime::<Utc>::deserialize(d)?
            .timestamp_nanos_opt()
            .ok_or_else(|| D::Error::custom("timestamp out of range (years 1677 to 2262)"))
    }
}

/// The highest sequence number a valid trail may reach (2^63 - 1); far beyond
/// any real trail, it leaves the counters room so they can never wrap.
pub const MAX_AUDIT_SEQUENCE: u64 = i64::MAX as u64;

/// Default number of entries a trail retains.
pub const DEFAULT_AUDIT_CAPACITY: usize = 10_000;

/// Why a trail failed verification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("audit trail verification failed at sequence {sequence}: {problem}")]
#[non_exhaustive]
pub struct AuditVerifyError {
    /// The first entry (or expected sequence) at fault.
    pub sequence: u64,
    /// What is wrong.
    pub problem: String,
}

/// A plan's audit trail: bounded, oldest evicted first, with lifetime counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GuardrailAuditTrail {
    capacity: usize,
    chained: bool,
    next_sequence: u64,
    allowed_count: u64,
    denied_count: u64,
    evicted_count: u64,
    anchor: AuditHash,
    entries: VecDeque<GuardrailAuditEntry>,
}

impl Default for GuardrailAuditTrail {
    fn default() -> Self {
        Self::new(DEFAULT_AUDIT_CAPACITY, cfg!(feature = "audit-chain"))
    }
}

impl GuardrailAuditTrail {
    /// An empty trail retaining `capacity` entries (at least one); `chained`
    /// turns the hash chain on (it stays off without the `audit-chain` feature).
    #[must_use]
    pub fn new(capacity: usize, chained: bool) -> Self {
        Self {
            capacity: capacity.max(1),
            chained: chained && cfg!(feature = "audit-chain"),
            next_sequence: 0,
            allowed_count: 0,
            denied_count: 0,
            evicted_count: 0,
            anchor: AuditHash::ZERO,
            entries: VecDeque::new(),
        }
    }

    /// The retained entries, oldest first.
    #[must_use]
    pub fn entries(&self) -> &VecDeque<GuardrailAuditEntry> {
        &self.entries
    }
    /// How many entries are retained at most.
    #[must_use]
    pub const fn capacity(&self) -> usize {
        self.capacity
    }
    /// Whether entries are hash-chained.
    #[must_use]
    pub const fn is_chained(&self) -> bool {
        self.chained
    }
    /// Lifetime count of allowed decisions (evicted ones included).
    #[must_use]
    pub const fn allowed_count(&self) -> u64 {
        self.allowed_count
    }
    /// Lifetime count of denied decisions (evicted ones included).
    #[must_use]
    pub const fn denied_count(&self) -> u64 {
        self.denied_count
    }
    /// How many entries were evicted.
    #[must_use]
    pub const fn evicted_count(&self) -> u64 {
        self.evicted_count
    }
    /// The sequence number the next entry gets (= lifetime entry count).
    #[must_use]
    pub const fn next_sequence(&self) -> u64 {
        self.next_sequence
    }
    /// The hash of the last evicted entry (zero before any eviction).
    #[must_use]
    pub const fn anchor(&self) -> AuditHash {
        self.anchor
    }
    /// The hash of the newest entry (the anchor when empty). Keeping this
    /// elsewhere lets a later check also detect a rewritten tail.
    #[must_use]
    pub fn head(&self) -> AuditHash {
        self.entries.back().map_or(self.anchor, |e| e.hash)
    }

    /// Appends a decision, evicting the oldest entry when full; returns its sequence.
    pub(crate) fn append(&mut self, record: Record, at_unix_nanos: i64) -> u64 {
        let result = record.result();
        let prev = self.head();
        let mut entry = GuardrailAuditEntry {
            sequence: self.next_sequence,
            timestamp: at_unix_nanos,
            event_type: record.event_type,
            guard_name: Cow::Borrowed(record.guard_name),
            result,
            reason: record.reason,
            context: record.context,
            prev_hash: if self.chained { prev } else { AuditHash::ZERO },
            hash: AuditHash::ZERO,
        };
        if self.chained {
            entry.hash = entry.compute_hash(prev);
        }
        // Saturating: `verify` keeps loaded trails far below the top of the range.
        self.next_sequence = self.next_sequence.saturating_add(1);
        match result {
            GuardrailResult::Allowed => self.allowed_count = self.allowed_count.saturating_add(1),
            GuardrailResult::Denied => self.denied_count = self.denied_count.saturating_add(1),
        }
        if self.entries.len() >= self.capacity {
            if let Some(evicted) = self.entries.pop_front() {
                self.anchor = evicted.hash;
                self.evicted_count = self.evicted_count.saturating_add(1);
            }
        }
        let sequence = entry.sequence;
        self.entries.push_back(entry);
        sequence
    }

    /// Proves the retained window complete and unaltered: sequences run on
    /// from the evicted count without gaps, counts add up, and (chained) every
    /// entry's hash matches its content and links to its predecessor, the
    /// first to the anchor.
    ///
    /// # Errors
    /// [`AuditVerifyError`] naming the first entry at fault.
    pub fn verify(&self) -> Result<(), AuditVerifyError> {
        let fail = |sequence: u64, problem: String| Err(AuditVerifyError { sequence, problem });
        if self.next_sequence > MAX_AUDIT_SEQUENCE {
            return fail(
                self.next_sequence,
                format!("sequence numbers above {MAX_AUDIT_SEQUENCE} are not accepted"),
            );
        }
        if self.entries.len() > self.capacity {
            return fail(
                self.evicted_count,
                format!(
                    "{} entries exceed the capacity of {}",
                    self.entries.len(),
                    self.capacity
                ),
            );
        }
        let retained = self.entries.len() as u64;
        if self.evicted_count.checked_add(retained) != Some(self.next_sequence) {
            return fail(
                self.next_sequence,
                format!(
                    "{} evicted + {retained} retained entries do not make the {} recorded",
                    self.evicted_count, self.next_sequence
                ),
            );
        }
        if self.allowed_count.checked_add(self.denied_count) != Some(self.next_sequence) {
            return fail(
                self.next_sequence,
                "allowed and denied counts do not add up to the entries recorded".to_owned(),
            );
        }
        if self.evicted_count == 0 && self.anchor != AuditHash::ZERO {
            return fail(0, "an anchor is set but nothing was evicted".to_owned());
        }
        let mut prev = self.anchor;
        for (expected_sequence, entry) in (self.evicted_count..).zip(&self.entries) {
            if entry.sequence != expected_sequence {
                return fail(
                    expected_sequence,
                    format!("found sequence {} instead", entry.sequence),
                );
            }
            let result = Record {
                event_type: entry.event_type,
                guard_name: "",
                reason: None,
                context: AuditContext::default(),
            }
            .result();
            if entry.result != result {
                return fail(
                    entry.sequence,
                    format!(
                        "result `{}` contradicts event `{}`",
                        entry.result, entry.event_type
                    ),
                );
            }
            if self.chained {
                if entry.prev_hash != prev {
                    return fail(
                        entry.sequence,
                        "the link to the previous entry is broken".to_owned(),
                    );
                }
                if entry.compute_hash(prev) != entry.hash {
                    return fail(
                        entry.sequence,
                        "the entry's content does not match its hash".to_owned(),
                    );
                }
                prev = entry.hash;
            } else if entry.hash != AuditHash::ZERO || entry.prev_hash != AuditHash::ZERO {
                return fail(
                    entry.sequence,
                    "an unchained trail carries hashes".to_owned(),
                );
            }
        }
        Ok(())
    }

    /// Test support: a mutable view of the entries, to simulate tampering.
    #[cfg(any(test, feature = "testing"))]
    #[doc(hidden)]
    pub fn entries_mut_for_tamper_tests(&mut self) -> &mut VecDeque<GuardrailAuditEntry> {
        &mut self.entries
    }
}

#[cfg(any(test, feature = "testing"))]
impl GuardrailAuditEntry {
    /// Test support: changes the reason, to simulate tampering.
    #[doc(hidden)]
    pub fn set_reason_for_tamper_tests(&mut self, reason: Option<String>) {
        self.reason = reason;
    }
}
