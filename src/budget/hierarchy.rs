//! Budget levels and the session/org budgets of [`CostBudgetService`].
//!
//! Each budget is a cell of atomics: `used` (spent + reserved) is checked
//! against `limit` with a compare-and-swap, so a reservation never takes a
//! budget past its limit, under any interleaving, and no lock is shared
//! between budgets. A multi-level charge reserves level by level and rolls
//! back the levels already taken when one refuses: all or none.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use parking_lot::RwLock;
use serde::{Deserialize, Serialize};

use crate::ids::{PlanId, SessionId};
use crate::money::Usd;
use crate::string_enum::string_enum;

string_enum!(
    /// A level of the budget hierarchy, from narrowest to broadest.
    BudgetLevel, "budget level" {
        /// One plan (the guardrails' `tool_budget`).
        Plan => "plan",
        /// One session.
        Session => "session",
        /// The organisation.
        Org => "org",
    }
);

/// A charge refused because a budget would be exceeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error(
    "{level} budget exceeded: limit {limit}, spent {spent}, reserved {reserved}, requested {requested}"
)]
#[non_exhaustive]
pub struct BudgetExceeded {
    /// The level that refused.
    pub level: BudgetLevel,
    /// Its limit.
    pub limit: Usd,
    /// What was spent there.
    pub spent: Usd,
    /// What is reserved there (in flight).
    pub reserved: Usd,
    /// What was asked for.
    pub requested: Usd,
}

/// A budget's state at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BudgetSnapshot {
    /// The limit (`None`: unlimited).
    pub limit: Option<Usd>,
    /// Spent.
    pub spent: Usd,
    /// Reserved, not yet settled.
    pub reserved: Usd,
}

impl BudgetSnapshot {
    /// What is left (`None`: unlimited).
    #[must_use]
    pub fn remaining(&self) -> Option<Usd> {
        self.limit
            .map(|l| l.saturating_sub(self.spent).saturating_sub(self.reserved))
    }
}

const UNLIMITED: i64 = i64::MAX;

/// One budget: a limit and what is used against it.
///
/// `used` (spent plus reserved) is the only value checked against the limit,
/// with a compare-and-swap, so a reservation costs one atomic operation per
/// level; `spent` moves only when money is actually spent, and what is
/// reserved is their difference.
#[derive(Debug)]
pub(crate) struct BudgetCell {
    level: BudgetLevel,
    limit: AtomicI64,
    used: AtomicI64,
    spent: AtomicI64,
}

impl BudgetCell {
    pub(crate) fn new(level: BudgetLevel, limit: Option<Usd>) -> Self {
        Self {
            level,
            limit: AtomicI64::new(limit.map_or(UNLIMITED, Usd::nanos)),
            used: AtomicI64::new(0),
            spent: AtomicI64::new(0),
        }
    }

    pub(crate) fn set_limit(&self, limit: Option<Usd>) {
        self.limit
            .store(limit.map_or(UNLIMITED, Usd::nanos), Ordering::SeqCst);
    }

    pub(crate) fn snapshot(&self) -> BudgetSnapshot {
        let limit = self.limit.load(Ordering::SeqCst);
        // Read `spent` first: between the two loads it can only grow with
        // `used`, so the difference never goes below what is truly reserved.
        let spent = self.spent.load(Ordering::SeqCst);
        let used = self.used.load(Ordering::SeqCst);
        BudgetSnapshot {
            limit: (limit != UNLIMITED).then_some(Usd::from_nanos(limit)),
            spent: Usd::from_nanos(spent),
            reserved: Usd::from_nanos(used.saturating_sub(spent).max(0)),
        }
    }

    fn exceeded(&self, requested: Usd) -> BudgetExceeded {
        let snapshot = self.snapshot();
        BudgetExceeded {
            level: self.level,
            limit: snapshot.limit.unwrap_or(Usd::MAX),
            spent: snapshot.spent,
            reserved: snapshot.reserved,
            requested,
        }
    }

    /// Adds `amount` to `used` iff the result stays within the limit.
    fn try_use(&self, amount: Usd) -> Result<(), BudgetExceeded> {
        let add = amount.nanos();
        let mut current = self.used.load(Ordering::Acquire);
        loop {
            let limit = self.limit.load(Ordering::Acquire);
            let next = match current.checked_add(add) {
                Some(next) if next <= limit => next,
                _ => return Err(self.exceeded(amount)),
            };
            match self.used.compare_exchange_weak(
                current,
                next,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return Ok(()),
                Err(actual) => current = actual,
            }
        }
    }

    /// Spends `amount` now, iff it fits.
    pub(crate) fn try_take(&self, amount: Usd) -> Result<(), BudgetExceeded> {
        self.try_use(amount)?;
        self.spent.fetch_add(amount.nanos(), Ordering::AcqRel);
        Ok(())
    }

    /// Gives back `amount` spent with [`try_take`](Self::try_take).
    pub(crate) fn give_back(&self, amount: Usd) {
        self.spent.fetch_sub(amount.nanos(), Ordering::AcqRel);
        self.used.fetch_sub(amount.nanos(), Ordering::AcqRel);
    }

    /// Settles a reservation of `reserved` at `actual`. Spend above the
    /// reservation is recorded even past the limit: the money is gone.
    fn settle(&self, reserved: Usd, actual: Usd) {
        self.spent.fetch_add(actual.nanos(), Ordering::AcqRel);
        let difference = actual.nanos().saturating_sub(reserved.nanos());
        if difference != 0 {
            self.used.fetch_add(difference, Ordering::AcqRel);
        }
    }

    /// Cancels a reservation.
    fn unreserve(&self, amount: Usd) {
        self.used.fetch_sub(amount.nanos(), Ordering::AcqRel);
    }
}

/// The budgets a plan's charges count against: its own, its session's, its
/// organisation's. A cheap `Clone` handle that reserves without any lookup.
#[derive(Debug, Clone)]
pub struct PlanBudget {
    // One shared array: a reservation clones one Arc, not three.
    cells: Arc<[Option<Arc<BudgetCell>>; 3]>,
}

impl PlanBudget {
    /// Reserves `amount` at every level or none. The [`Reservation`] settles
    /// with [`Reservation::commit`] and is released if dropped unsettled.
    ///
    /// # Errors
    /// [`BudgetExceeded`] naming the level that refused; nothing is reserved then.
    pub fn reserve(&self, amount: Usd) -> Result<Reservation, BudgetExceeded> {
        if amount.is_negative() {
            return Err(BudgetExceeded {
                level: BudgetLevel::Plan,
                limit: Usd::ZERO,
                spent: Usd::ZERO,
                reserved: Usd::ZERO,
                requested: amount,
            });
        }
        for (taken, cell) in self.cells.iter().enumerate() {
            let Some(cell) = cell else { continue };
            if let Err(exceeded) = cell.try_use(amount) {
                for earlier in self.cells.iter().take(taken).flatten() {
                    earlier.unreserve(amount);
                }
                return Err(exceeded);
            }
        }
        Ok(Reservation {
            cells: Arc::clone(&self.cells),
            amount,
            settled: false,
        })
    }

    /// The state of one level (`None` when the plan has no such level).
    #[must_use]
    pub fn snapshot(&self, level: BudgetLevel) -> Option<BudgetSnapshot> {
        let index = match level {
            BudgetLevel::Plan => 0,
            BudgetLevel::Session => 1,
            BudgetLevel::Org => 2,
        };
        self.cells
            .get(index)
            .and_then(Option::as_ref)
            .map(|c| c.snapshot())
    }
}

/// Money set aside at every level of a plan's budgets before a call whose
/// cost is only estimated. Settle it with [`commit`](Self::commit); dropping
/// it unsettled releases it.
#[derive(Debug)]
#[must_use = "dropping a reservation releases it"]
pub struct Reservation {
    cells: Arc<[Option<Arc<BudgetCell>>; 3]>,
    amount: Usd,
    settled: bool,
}

impl Reservation {
    /// The amount reserved.
    #[must_use]
    pub const fn amount(&self) -> Usd {
        self.amount
    }

    /// Settles at the actual cost at every level. A cost above the reservation
    /// is recorded in full, even past a limit.
    pub fn commit(mut self, actual: Usd) {
        for cell in self.cells.iter().flatten() {
            cell.settle(self.amount, actual.max(Usd::ZERO));
        }
        self.settled = true;
    }

    /// Releases the reservation without spending anything.
    pub fn release(mut self) {
        self.undo();
    }

    fn undo(&mut self) {
        if !self.settled {
            for cell in self.cells.iter().flatten() {
                cell.unreserve(self.amount);
            }
            self.settled = true;
        }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.undo();
    }
}

/// Takes `amount` from every cell or from none.
pub(crate) fn take_all(cells: &[&BudgetCell], amount: Usd) -> Result<(), BudgetExceeded> {
    for (taken, cell) in cells.iter().enumerate() {
        if let Err(exceeded) = cell.try_take(amount) {
            for earlier in cells.iter().take(taken) {
                earlier.give_back(amount);
            }
            return Err(exceeded);
        }
    }
    Ok(())
}

/// A plan's own budget, the session it is counted against, and (for a plan
/// without a session) the organisation.
type PlanEntry = (Arc<BudgetCell>, Option<SessionId>, Option<String>);

#[derive(Debug, Default)]
struct Budgets {
    plans: RwLock<HashMap<PlanId, PlanEntry>>,
    sessions: RwLock<HashMap<SessionId, Arc<BudgetCell>>>,
    orgs: RwLock<HashMap<String, Arc<BudgetCell>>>,
    session_orgs: RwLock<HashMap<SessionId, String>>,
}

/// Session and organisation budgets: limits and exact spend. A cheap `Clone`
/// handle, `Send + Sync`.
///
/// ```
/// use cleveragents::{BudgetLevel, CostBudgetService, SessionId, Usd};
///
/// let budgets = CostBudgetService::new();
/// let session = SessionId::new();
/// budgets.set_org_limit("acme", Some(Usd::from_dollars(10)));
/// budgets.set_session_limit(session, Some(Usd::from_dollars(5)));
/// budgets.assign_session_to_org(session, "acme");
///
/// budgets.charge(session, Usd::from_dollars(4))?;
/// let refused = budgets.charge(session, Usd::from_dollars(2)).unwrap_err();
/// assert_eq!(refused.level, BudgetLevel::Session);
/// assert_eq!(budgets.org_budget("acme").spent, Usd::from_dollars(4));
/// # Ok::<(), cleveragents::BudgetExceeded>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct CostBudgetService {
    inner: Arc<Budgets>,
}

impl CostBudgetService {
    /// No limits anywhere.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn session_cell(&self, session: SessionId) -> Arc<BudgetCell> {
        if let Some(cell) = self.inner.sessions.read().get(&session) {
            return Arc::clone(cell);
        }
        Arc::clone(
            self.inner
                .sessions
                .write()
                .entry(session)
                .or_insert_with(|| Arc::new(BudgetCell::new(BudgetLevel::Session, None))),
        )
    }

    fn org_cell(&self, org: &str) -> Arc<BudgetCell> {
        if let Some(cell) = self.inner.orgs.read().get(org) {
            return Arc::clone(cell);
        }
        Arc::clone(
            self.inner
                .orgs
                .write()
                .entry(org.to_owned())
                .or_insert_with(|| Arc::new(BudgetCell::new(BudgetLevel::Org, None))),
        )
    }

    /// Sets (or with `None` removes) a session's limit. A limit below what is
    /// already used refuses every further charge; nothing spent is undone.
    pub fn set_session_limit(&self, session: SessionId, limit: Option<Usd>) {
        self.session_cell(session).set_limit(limit);
    }

    /// Sets (or removes) an organisation's limit.
    pub fn set_org_limit(&self, org: &str, limit: Option<Usd>) {
        self.org_cell(org).set_limit(limit);
    }

    /// Counts a session's charges against `org` from now on.
    pub fn assign_session_to_org(&self, session: SessionId, org: &str) {
        self.inner
            .session_orgs
            .write()
            .insert(session, org.to_owned());
    }

    /// The organisation a session belongs to.
    #[must_use]
    pub fn org_of(&self, session: SessionId) -> Option<String> {
        self.inner.session_orgs.read().get(&session).cloned()
    }

    /// A session's budget.
    #[must_use]
    pub fn session_budget(&self, session: SessionId) -> BudgetSnapshot {
        self.session_cell(session).snapshot()
    }

    /// An organisation's budget.
    #[must_use]
    pub fn org_budget(&self, org: &str) -> BudgetSnapshot {
        self.org_cell(org).snapshot()
    }

    /// The cells a charge for `session` is taken from: the session's, then its org's.
    pub(crate) fn cells(&self, session: SessionId) -> (Arc<BudgetCell>, Option<Arc<BudgetCell>>) {
        let org = self.org_of(session).map(|org| self.org_cell(&org));
        (self.session_cell(session), org)
    }

    fn plan_cell(&self, plan: PlanId) -> PlanEntry {
        if let Some((cell, session, org)) = self.inner.plans.read().get(&plan) {
            return (Arc::clone(cell), *session, org.clone());
        }
        let mut plans = self.inner.plans.write();
        let (cell, session, org) = plans.entry(plan).or_insert_with(|| {
            (
                Arc::new(BudgetCell::new(BudgetLevel::Plan, None)),
                None,
                None,
            )
        });
        (Arc::clone(cell), *session, org.clone())
    }

    /// Sets (or removes) a plan's limit.
    pub fn set_plan_limit(&self, plan: PlanId, limit: Option<Usd>) {
        self.plan_cell(plan).0.set_limit(limit);
    }

    /// Counts a plan's reservations against `session` (and its org) from now on.
    pub fn assign_plan_to_session(&self, plan: PlanId, session: SessionId) {
        let (cell, _, _) = self.plan_cell(plan);
        self.inner
            .plans
            .write()
            .insert(plan, (cell, Some(session), None));
    }

    /// Counts a plan that has no session directly against `org`.
    pub fn assign_plan_to_org(&self, plan: PlanId, org: &str) {
        let (cell, session, _) = self.plan_cell(plan);
        self.inner
            .plans
            .write()
            .insert(plan, (cell, session, Some(org.to_owned())));
    }

    /// A plan's own budget.
    #[must_use]
    pub fn plan_budget(&self, plan: PlanId) -> BudgetSnapshot {
        self.plan_cell(plan).0.snapshot()
    }

    /// The handle reserving against a plan's budgets (plan, its session, the
    /// session's org), resolved once: keep it for repeated reservations.
    #[must_use]
    pub fn plan(&self, plan: PlanId) -> PlanBudget {
        let (plan_cell, session, plan_org) = self.plan_cell(plan);
        let (session_cell, org_cell) = match session {
            Some(session) => {
                let (s, o) = self.cells(session);
                (Some(s), o)
            }
            None => (None, plan_org.map(|org| self.org_cell(&org))),
        };
        PlanBudget {
            cells: Arc::new([Some(plan_cell), session_cell, org_cell]),
        }
    }

    /// Reserves `amount` against a plan's budgets (see [`PlanBudget::reserve`]).
    ///
    /// # Errors
    /// [`BudgetExceeded`] naming the level that refused.
    pub fn reserve(&self, plan: PlanId, amount: Usd) -> Result<Reservation, BudgetExceeded> {
        self.plan(plan).reserve(amount)
    }

    /// Charges `amount` to the session and its organisation, both or neither.
    ///
    /// # Errors
    /// [`BudgetExceeded`] naming the level that refused; nothing is charged then.
    pub fn charge(&self, session: SessionId, amount: Usd) -> Result<(), BudgetExceeded> {
        let (session_cell, org_cell) = self.cells(session);
        match &org_cell {
            Some(org) => take_all(&[&session_cell, org], amount),
            None => take_all(&[&session_cell], amount),
        }
    }
}

impl fmt::Display for BudgetSnapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.limit {
            Some(limit) => write!(f, "{} of {limit} spent", self.spent),
            None => write!(f, "{} spent (no limit)", self.spent),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_all_is_all_or_none() {
        let a = BudgetCell::new(BudgetLevel::Plan, Some(Usd::from_dollars(10)));
        let b = BudgetCell::new(BudgetLevel::Session, Some(Usd::from_dollars(1)));
        let err = take_all(&[&a, &b], Usd::from_dollars(2)).unwrap_err();
        assert_eq!(err.level, BudgetLevel::Session);
        assert_eq!(
            a.snapshot().spent,
            Usd::ZERO,
            "the plan level was given back"
        );
        assert_eq!(
            err.to_string(),
            "session budget exceeded: limit $1.00, spent $0.00, reserved $0.00, requested $2.00"
        );
        take_all(&[&a, &b], Usd::from_dollars(1)).unwrap();
        assert_eq!(a.snapshot().spent, Usd::from_dollars(1));
        assert_eq!(b.snapshot().remaining(), Some(Usd::ZERO));
    }

    #[test]
    fn reservations_commit_release_and_drop() {
        let budgets = CostBudgetService::new();
        let (plan, session) = (PlanId::new(), SessionId::new());
        budgets.set_plan_limit(plan, Some(Usd::from_dollars(2)));
        budgets.set_session_limit(session, Some(Usd::from_dollars(3)));
        budgets.assign_plan_to_session(plan, session);
        let handle = budgets.plan(plan);
        let first = handle.reserve(Usd::from_dollars(1)).unwrap();
        assert_eq!(budgets.plan_budget(plan).reserved, Usd::from_dollars(1));
        let second = handle.reserve(Usd::from_dollars(1)).unwrap();
        let refused = handle.reserve(Usd::from_nanos(1)).unwrap_err();
        assert_eq!(
            (refused.level, refused.reserved),
            (BudgetLevel::Plan, Usd::from_dollars(2))
        );
        first.commit(Usd::from_cents(40));
        drop(second);
        let plan_now = budgets.plan_budget(plan);
        assert_eq!(
            (plan_now.spent, plan_now.reserved),
            (Usd::from_cents(40), Usd::ZERO)
        );
        assert_eq!(budgets.session_budget(session).spent, Usd::from_cents(40));
        handle.reserve(Usd::from_cents(50)).unwrap().release();
        assert_eq!(budgets.session_budget(session).reserved, Usd::ZERO);
    }
}
