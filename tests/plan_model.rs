//! Model-based test: random operation sequences applied to the in-memory plan
//! lifecycle and to a plain sequential model must agree after every step.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests and benches fail by panicking"
)]

use cleveragents::{
    InMemoryPlanLifecycle, PlanId, PlanLifecycle, PlanPhase, PlanState, ServiceError, UsePlan,
};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Use,
    Execute(usize),
    Apply(usize),
    Cancel(usize),
    Rollback(usize),
    Change(usize, u8),
    Correct(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => Just(Op::Use),
        2 => (0..4_usize).prop_map(Op::Execute),
        2 => (0..4_usize).prop_map(Op::Apply),
        1 => (0..4_usize).prop_map(Op::Cancel),
        2 => (0..4_usize).prop_map(Op::Rollback),
        2 => (0..4_usize, 0..3_u8).prop_map(|(p, f)| Op::Change(p, f)),
        1 => (0..4_usize).prop_map(Op::Correct),
    ]
}

/// The model: phase, state, the set of changed files, and the checkpoint stack.
#[derive(Debug, Clone, PartialEq)]
struct Model {
    phase: PlanPhase,
    state: PlanState,
    files: Vec<u8>,
    checkpoints: Vec<(PlanPhase, PlanState, Vec<u8>)>,
    decisions: usize,
}

impl Model {
    fn new() -> Self {
        Self {
            phase: PlanPhase::Strategize,
            state: PlanState::Completed,
            files: vec![],
            checkpoints: vec![],
            decisions: 1,
        }
    }
    fn open(&self) -> bool {
        let finished = matches!(self.state, PlanState::Cancelled | PlanState::Failed)
            || (self.phase, self.state) == (PlanPhase::Apply, PlanState::Completed);
        !finished
    }
    fn checkpoint(&mut self) {
        self.checkpoints
            .push((self.phase, self.state, self.files.clone()));
    }
    /// Applies `op`; returns whether it should succeed.
    fn apply(&mut self, op: &Op) -> bool {
        match op {
            Op::Use => true,
            Op::Execute(_) => {
                let ok = (self.phase, self.state) == (PlanPhase::Strategize, PlanState::Completed);
                if ok {
                    self.checkpoint();
                    (self.phase, self.state) = (PlanPhase::Execute, PlanState::Running);
                    self.decisions += 1;
                }
                ok
            }
            Op::Apply(_) => {
                let ok = self.phase == PlanPhase::Execute
                    && matches!(self.state, PlanState::Running | PlanState::Completed);
                if ok {
                    self.checkpoint();
                    (self.phase, self.state) = (PlanPhase::Apply, PlanState::Completed);
                    self.decisions += 1;
                }
                ok
            }
            Op::Cancel(_) => {
                let ok = self.open();
                if ok {
                    self.state = PlanState::Cancelled;
                    self.decisions += 1;
                }
                ok
            }
            Op::Rollback(_) => {
                if matches!(self.state, PlanState::Cancelled | PlanState::Failed) {
                    return false;
                }
                match self.checkpoints.pop() {
                    Some((phase, state, files)) => {
                        (self.phase, self.state, self.files) = (phase, state, files);
                        self.decisions += 1;
                        true
                    }
                    None => false,
                }
            }
            Op::Change(_, file) => {
                let ok = (self.phase, self.state) == (PlanPhase::Execute, PlanState::Running);
                if ok && !self.files.contains(file) {
                    self.files.push(*file);
                    self.files.sort_unstable();
                }
                ok
            }
            Op::Correct(_) => {
                let ok = self.open();
                if ok {
                    self.decisions += 1;
                }
                ok
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_lifecycle_agrees_with_the_model(ops in prop::collection::vec(op(), 1..60)) {
        let real = InMemoryPlanLifecycle::new();
        let mut ids: Vec<PlanId> = Vec::new();
        let mut models: Vec<Model> = Vec::new();
        for op in &ops {
            let target = match op {
                Op::Use => None,
                Op::Execute(i) | Op::Apply(i) | Op::Cancel(i) | Op::Rollback(i) | Op::Change(i, _) | Op::Correct(i) => {
                    if ids.is_empty() { continue; }
                    Some(i % ids.len())
                }
            };
            let result: Result<(), ServiceError> = match (op, target) {
                (Op::Use, _) => real.use_action(UsePlan::new("model")).map(|s| {
                    ids.push(s.plan_id);
                    models.push(Model::new());
                }),
                (Op::Execute(_), Some(i)) => real.execute(ids[i]).map(drop),
                (Op::Apply(_), Some(i)) => real.apply(ids[i]).map(drop),
                (Op::Cancel(_), Some(i)) => real.cancel(ids[i]).map(drop),
                (Op::Rollback(_), Some(i)) => real.rollback(ids[i]).map(drop),
                (Op::Change(_, f), Some(i)) => real
                    .record_change(ids[i], &format!("file-{f}"), None, Some("x".into()))
                    .map(drop),
                (Op::Correct(_), Some(i)) => real.correct(ids[i], cleveragents::Correction::new("fix")).map(drop),
                _ => unreachable!(),
            };
            let expected = match target {
                None => true,
                Some(i) => models[i].apply(op),
            };
            prop_assert_eq!(result.is_ok(), expected, "{:?}: {:?}", op, result);
            if let Err(e) = &result {
                prop_assert!(matches!(e, ServiceError::InvalidState { .. }), "refusals are InvalidState: {e}");
            }
            for (id, model) in ids.iter().zip(&models) {
                let status = real.status(*id).unwrap();
                prop_assert_eq!((status.phase, status.state), (model.phase, model.state));
                let files: Vec<String> = real.diff(*id).unwrap().into_iter().map(|c| c.path).collect();
                let expected: Vec<String> = model.files.iter().map(|f| format!("file-{f}")).collect();
                prop_assert_eq!(files, expected);
                prop_assert_eq!(real.tree(*id).unwrap().len(), model.decisions);
            }
        }
    }
}
