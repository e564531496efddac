//! Load a custom automation profile from YAML, register it, and resolve the
//! profile a plan gets, showing which level decided.
//!
//! Run with `cargo run --example custom_profile`.

use std::error::Error;
use std::sync::Arc;

use cleveragents::{
    AutomationDecision, AutomationProfile, AutomationProfileService, GateDecision, GuardContext,
    InMemoryProfileRepository, MapEnvironment, Usd,
};

const TEAM_PROFILE: &str = "\
name: team-careful
description: Automatic strategy, careful execution, a human applies
decompose_task: 0.0
create_tool: 0.6
select_tool: 1.0
edit_code: 0.5
execute_command: 0.8
safety:
  max_cost_per_plan: 2.50
  max_retries_per_step: 2
guard:
  max_total_cost: 2.50
  tool_denylist: [shell_exec, \"rm_*\"]
  require_approval_for_writes: true
";

fn describe(decision: GateDecision) -> &'static str {
    match decision {
        GateDecision::Proceed => "proceeds automatically",
        GateDecision::AskHuman => "asks a human",
        _ => "stops (no human can answer)",
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let profile = AutomationProfile::from_yaml_str(TEAM_PROFILE)?;
    println!("Loaded `{}`: {}.", profile.name, profile.description);

    // The global default comes from the environment the host passes in.
    let environment = MapEnvironment::new().with("CLEVERAGENTS_AUTOMATION_PROFILE", "supervised");
    let service = AutomationProfileService::builder()
        .repository(Arc::new(InMemoryProfileRepository::new()))
        .environment(Arc::new(environment))
        .build();
    service.create_profile(profile)?;

    for (plan, action, project) in [
        (Some("team-careful"), Some("cautious"), None),
        (None, Some("cautious"), Some("trusted")),
        (None, None, None),
    ] {
        let resolved = service.resolve_profile(plan, action, project)?;
        println!(
            "plan={:<14} action={:<10} project={:<9} -> `{}` (decided at the {} level)",
            plan.unwrap_or("-"),
            action.unwrap_or("-"),
            project.unwrap_or("-"),
            resolved.name(),
            resolved.source
        );
    }

    // A typo is an error that says where it is, never a silent fallback.
    if let Err(error) = service.resolve_profile(None, Some("team-carefull"), None) {
        println!("error: {error}");
    }

    let locked = service.resolve_profile(Some("team-careful"), None, None)?;
    let profile = &locked.profile;
    for (decision, confidence) in [
        (AutomationDecision::DecomposeTask, None),
        (AutomationDecision::EditCode, Some(0.65)),
        (AutomationDecision::ExecuteCommand, Some(0.65)),
        (AutomationDecision::SelectTool, Some(1.0)),
    ] {
        let shown = confidence.map_or_else(|| "unknown".to_owned(), |c| format!("{c:.2}"));
        println!(
            "{decision} at confidence {shown} (threshold {}): {}",
            profile.threshold(decision),
            describe(profile.decide(decision, confidence, true))
        );
    }

    for ctx in [
        GuardContext::new("read_file"),
        GuardContext::new("rm_tree"),
        GuardContext::new("write_file").write(true),
        GuardContext::new("read_file").cost_so_far(Usd::parse("2.75")?),
    ] {
        let result = profile.check_guard(&ctx);
        match &result.reason {
            None => println!("guard: `{}` is allowed", ctx.tool_name),
            Some(reason) => println!("guard: `{}` needs approval: {reason}", ctx.tool_name),
        }
    }

    // Editing the registered profile later does not change the locked copy.
    let mut edited = service.get_profile("team-careful")?;
    edited.edit_code = cleveragents::Threshold::ALWAYS_PROCEED;
    service.update_profile("team-careful", edited)?;
    println!(
        "after an edit upstream, the plan's copy still has edit_code = {}",
        locked.profile.edit_code
    );
    Ok(())
}
