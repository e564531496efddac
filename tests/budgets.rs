//! Exact money, concurrent reservations, and a model-based test of
//! reservations against a sequential model.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use std::thread;

use chrono::{TimeZone, Utc};
use cleveragents::{
    BudgetLevel, CostBudgetService, CostLedger, CostRecord, InMemoryCostLedger, PlanId,
    PricingTable, SessionId, TokenUsage, Usd,
};
use proptest::prelude::*;

#[test]
fn a_million_small_charges_sum_exactly() {
    let charge = Usd::parse("0.000001615").unwrap();
    let budgets = CostBudgetService::new();
    let (plan, session) = (PlanId::new(), SessionId::new());
    budgets.assign_plan_to_session(plan, session);
    let handle = budgets.plan(plan);
    for _ in 0..1_000_000 {
        handle.reserve(charge).unwrap().commit(charge);
    }
    assert_eq!(
        budgets.plan_budget(plan).spent,
        Usd::parse("1.615").unwrap()
    );
    assert_eq!(
        budgets.session_budget(session).spent,
        Usd::parse("1.615").unwrap()
    );

    let ledger = InMemoryCostLedger::with_capacity(1_000);
    let at = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
    for i in 0..1_000_000 {
        let mut record = CostRecord::new(format!("k{i}"), "m", TokenUsage::new(1, 1), charge, at);
        record.session_id = Some(session);
        record.plan_id = Some(plan);
        assert!(ledger.record(record).unwrap());
    }
    assert_eq!(
        ledger.lifetime_total().unwrap(),
        Usd::parse("1.615").unwrap()
    );
    assert_eq!(
        ledger.session_cost(session).unwrap(),
        Usd::parse("1.615").unwrap()
    );
    assert_eq!(ledger.plan_breakdown(plan).unwrap()[0].calls, 1_000_000);
    assert_eq!(
        ledger.records().len(),
        1_000,
        "records are bounded, totals are not"
    );
}

#[test]
fn repeated_idempotency_keys_are_not_charged_twice() {
    let ledger = InMemoryCostLedger::new();
    let at = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
    let record = CostRecord::new("call-1", "m", TokenUsage::new(1, 1), Usd::from_cents(5), at);
    assert!(ledger.record(record.clone()).unwrap());
    assert!(!ledger.record(record).unwrap());
    assert_eq!(ledger.lifetime_total().unwrap(), Usd::from_cents(5));
    let negative = CostRecord::new(
        "call-2",
        "m",
        TokenUsage::new(1, 1),
        Usd::from_cents(-5),
        at,
    );
    assert!(ledger.record(negative).is_err());
}

#[test]
fn the_example_pricing_table_loads() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/pricing.yaml"
    ))
    .unwrap();
    let table = PricingTable::from_yaml_str(&text).unwrap();
    assert!(table.models.len() >= 3);
    let at = Utc.with_ymd_and_hms(2026, 6, 1, 0, 0, 0).unwrap();
    for model in table.models.keys() {
        assert!(
            table.cost(model, &TokenUsage::new(1000, 1000), at).unwrap() > Usd::ZERO,
            "{model}"
        );
    }
}

#[test]
fn concurrent_reservations_never_exceed_any_budget() {
    let budgets = CostBudgetService::new();
    let sessions = [SessionId::new(), SessionId::new()];
    let plans: Vec<PlanId> = (0..8).map(|_| PlanId::new()).collect();
    let (plan_limit, session_limit, total_limit) = (
        Usd::from_dollars(3),
        Usd::from_dollars(9),
        Usd::from_dollars(14),
    );
    budgets.set_org_limit("lifetime", Some(total_limit));
    for s in sessions {
        budgets.set_session_limit(s, Some(session_limit));
        budgets.assign_session_to_org(s, "lifetime");
    }
    for (i, p) in plans.iter().enumerate() {
        budgets.set_plan_limit(*p, Some(plan_limit));
        budgets.assign_plan_to_session(*p, sessions[i % 2]);
    }
    let spent: Vec<Usd> = thread::scope(|s| {
        let handles: Vec<_> = plans
            .iter()
            .enumerate()
            .map(|(t, plan)| {
                let handle = budgets.plan(*plan);
                let budgets = &budgets;
                s.spawn(move || {
                    let mut rng = 0x2545_F491_4F6C_DD1D_u64 ^ t as u64;
                    let mut next = move || {
                        rng ^= rng << 13;
                        rng ^= rng >> 7;
                        rng ^= rng << 17;
                        rng
                    };
                    let mut committed = Usd::ZERO;
                    for _ in 0..20_000 {
                        let amount = Usd::from_nanos((next() % 5_000_000) as i64);
                        if let Ok(reservation) = handle.reserve(amount) {
                            match next() % 3 {
                                0 => {
                                    let actual = Usd::from_nanos(amount.nanos() / 2);
                                    reservation.commit(actual);
                                    committed = committed.checked_add(actual).unwrap();
                                }
                                1 => reservation.release(),
                                _ => drop(reservation),
                            }
                        }
                        for level in [BudgetLevel::Plan, BudgetLevel::Session, BudgetLevel::Org] {
                            let snap = handle.snapshot(level).unwrap();
                            assert!(
                                snap.spent.checked_add(snap.reserved).unwrap()
                                    <= snap.limit.unwrap()
                            );
                        }
                    }
                    let _ = budgets;
                    committed
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut total = Usd::ZERO;
    for (i, plan) in plans.iter().enumerate() {
        let snap = budgets.plan_budget(*plan);
        assert_eq!(snap.spent, spent[i], "plan {i}: commits add up exactly");
        assert_eq!(
            snap.reserved,
            Usd::ZERO,
            "every reservation was settled or released"
        );
        total = total.checked_add(spent[i]).unwrap();
    }
    let org = budgets.org_budget("lifetime");
    assert_eq!((org.spent, org.reserved), (total, Usd::ZERO));
    assert!(org.spent <= total_limit);
}

#[derive(Debug, Clone)]
enum Op {
    Reserve(i64),
    Commit(usize, i64),
    Release(usize),
    SetLimit(i64),
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn reservations_agree_with_a_sequential_model(ops in prop::collection::vec(
        prop_oneof![
            (0_i64..400).prop_map(Op::Reserve),
            (0_usize..8, 0_i64..500).prop_map(|(i, a)| Op::Commit(i, a)),
            (0_usize..8).prop_map(Op::Release),
            (0_i64..2000).prop_map(Op::SetLimit),
        ],
        1..60,
    )) {
        let budgets = CostBudgetService::new();
        let plan = PlanId::new();
        let mut limit = 1000_i64;
        budgets.set_plan_limit(plan, Some(Usd::from_cents(limit)));
        let handle = budgets.plan(plan);
        let mut open: Vec<(cleveragents::Reservation, i64)> = Vec::new();
        let (mut spent, mut reserved) = (0_i64, 0_i64);
        for op in ops {
            match op {
                Op::Reserve(c) => {
                    let fits = spent + reserved + c <= limit;
                    let result = handle.reserve(Usd::from_cents(c));
                    prop_assert_eq!(result.is_ok(), fits);
                    if let Ok(r) = result {
                        reserved += c;
                        open.push((r, c));
                    }
                }
                Op::Commit(i, actual) if !open.is_empty() => {
                    let (r, c) = open.remove(i % open.len());
                    r.commit(Usd::from_cents(actual));
                    reserved -= c;
                    spent += actual;
                }
                Op::Release(i) if !open.is_empty() => {
                    let (r, c) = open.remove(i % open.len());
                    r.release();
                    reserved -= c;
                }
                Op::SetLimit(l) => {
                    limit = l;
                    budgets.set_plan_limit(plan, Some(Usd::from_cents(l)));
                }
                _ => {}
            }
            let snap = budgets.plan_budget(plan);
            prop_assert_eq!(snap.spent, Usd::from_cents(spent));
            prop_assert_eq!(snap.reserved, Usd::from_cents(reserved));
        }
    }
}
