//! The automation profile service: lookup, custom profiles, resolution.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::Arc;

use parking_lot::RwLock;

use super::builtin::{BUILTIN_PROFILE_NAMES, builtin_profile, builtin_profiles, is_builtin};
use super::resolve::{
    Environment, MapEnvironment, PROFILE_ENV_VAR, ProfileSource, Resolved, ResolvedProfile,
    SafetyProfileRef,
};
use super::safety::{NAMED_SAFETY_PROFILES, SafetyProfile};
use super::{AutomationProfile, ProfileError};
use crate::guard::{GuardContext, GuardResult};
use crate::service_error::{ServiceError, ServiceResult};

/// Storage of custom automation profiles. Implemented by hosts; `&self`
/// methods, safe under concurrency. Built-in names never reach it.
pub trait ProfileRepository: Send + Sync + Debug + 'static {
    /// The profile called `name`, if stored.
    ///
    /// # Errors
    /// From the host.
    fn get(&self, name: &str) -> ServiceResult<Option<AutomationProfile>>;
    /// Every stored profile, sorted by name.
    ///
    /// # Errors
    /// From the host.
    fn list(&self) -> ServiceResult<Vec<AutomationProfile>>;
    /// Stores a new profile.
    ///
    /// # Errors
    /// `AlreadyExists` (key `name`) when the name is taken.
    fn insert(&self, profile: AutomationProfile) -> ServiceResult<()>;
    /// Replaces the stored profile of the same name.
    ///
    /// # Errors
    /// `NotFound` (key `name`) when there is none.
    fn update(&self, profile: AutomationProfile) -> ServiceResult<()>;
    /// Removes and returns a profile.
    ///
    /// # Errors
    /// `NotFound` (key `name`) when there is none.
    fn delete(&self, name: &str) -> ServiceResult<AutomationProfile>;
}

/// The in-memory [`ProfileRepository`]: a cheap `Clone` handle; clones share state.
#[derive(Debug, Clone, Default)]
pub struct InMemoryProfileRepository {
    profiles: Arc<RwLock<BTreeMap<String, AutomationProfile>>>,
}

impl InMemoryProfileRepository {
    /// An empty repository.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

impl ProfileRepository for InMemoryProfileRepository {
    fn get(&self, name: &str) -> ServiceResult<Option<AutomationProfile>> {
        Ok(self.profiles.read().get(name).cloned())
    }

    fn list(&self) -> ServiceResult<Vec<AutomationProfile>> {
        Ok(self.profiles.read().values().cloned().collect())
    }

    fn insert(&self, profile: AutomationProfile) -> ServiceResult<()> {
        let mut profiles = self.profiles.write();
        if profiles.contains_key(&profile.name) {
            return Err(ServiceError::AlreadyExists {
                entity: "automation profile",
                key: "name",
                id: profile.name,
            });
        }
        profiles.insert(profile.name.clone(), profile);
        Ok(())
    }

    fn update(&self, profile: AutomationProfile) -> ServiceResult<()> {
        let mut profiles = self.profiles.write();
        match profiles.get_mut(&profile.name) {
            Some(slot) => {
                *slot = profile;
                Ok(())
            }
            None => Err(ServiceError::not_found(
                "automation profile",
                "name",
                &profile.name,
            )),
        }
    }

    fn delete(&self, name: &str) -> ServiceResult<AutomationProfile> {
        self.profiles
            .write()
            .remove(name)
            .ok_or_else(|| ServiceError::not_found("automation profile", "name", name))
    }
}

/// Builds an [`AutomationProfileService`].
#[derive(Debug, Default)]
#[must_use]
pub struct AutomationProfileServiceBuilder {
    repository: Option<Arc<dyn ProfileRepository>>,
    global_default: Option<String>,
    environment: Option<Arc<dyn Environment>>,
}

impl AutomationProfileServiceBuilder {
    /// Enables custom profiles, stored in `repository`.
    pub fn repository(mut self, repository: Arc<dyn ProfileRepository>) -> Self {
        self.repository = Some(repository);
        self
    }

    /// The explicit global default (`core.automation-profile`); it takes
    /// precedence over the environment variable.
    pub fn global_default(mut self, name: impl Into<String>) -> Self {
        self.global_default = Some(name.into());
        self
    }

    /// Where `CLEVERAGENTS_AUTOMATION_PROFILE` is read from. Without one, no
    /// environment is consulted; pass [`ProcessEnvironment`](super::ProcessEnvironment)
    /// to read the process's.
    pub fn environment(mut self, environment: Arc<dyn Environment>) -> Self {
        self.environment = Some(environment);
        self
    }

    /// Builds the service.
    #[must_use]
    pub fn build(self) -> AutomationProfileService {
        AutomationProfileService {
            repository: self.repository,
            global_default: self.global_default,
            environment: self
                .environment
                .unwrap_or_else(|| Arc::new(MapEnvironment::new())),
        }
    }
}

/// Looks up, stores and resolves automation profiles. A cheap `Clone` handle.
///
/// Resolution precedence: plan > action > project > global (the explicit
/// global default, else `CLEVERAGENTS_AUTOMATION_PROFILE` from the injected
/// environment) > `manual`. Every level that is set must name a known profile
/// (a blank name counts as unset): an unknown name is an error naming the
/// level, never a silent fallback.
///
/// ```
/// use std::sync::Arc;
/// use cleveragents::{AutomationProfileService, MapEnvironment, ProfileSource};
///
/// let service = AutomationProfileService::builder()
///     .environment(Arc::new(MapEnvironment::new().with("CLEVERAGENTS_AUTOMATION_PROFILE", "auto")))
///     .build();
/// let resolved = service.resolve_profile(None, Some("cautious"), Some("trusted"))?;
/// assert_eq!((resolved.name(), resolved.source), ("cautious", ProfileSource::Action));
/// let resolved = service.resolve_profile(None, None, None)?;
/// assert_eq!((resolved.name(), resolved.source), ("auto", ProfileSource::Environment));
///
/// let error = service.resolve_profile(Some("supervisd"), None, None).unwrap_err();
/// assert!(error.to_string().starts_with("unknown automation profile `supervisd` at the plan level; known profiles: manual, review"));
/// # Ok::<(), cleveragents::ProfileError>(())
/// ```
#[derive(Debug, Clone)]
pub struct AutomationProfileService {
    repository: Option<Arc<dyn ProfileRepository>>,
    global_default: Option<String>,
    environment: Arc<dyn Environment>,
}

impl Default for AutomationProfileService {
    fn default() -> Self {
        Self::builder().build()
    }
}

fn set(name: Option<&str>) -> Option<&str> {
    name.filter(|n| !n.trim().is_empty())
}

impl AutomationProfileService {
    /// Built-ins only, no global default, no environment.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder.
    pub fn builder() -> AutomationProfileServiceBuilder {
        AutomationProfileServiceBuilder::default()
    }

    fn lookup(&self, name: &str) -> Result<Option<Arc<AutomationProfile>>, ProfileError> {
        if let Some(profile) = builtin_profile(name) {
            return Ok(Some(profile));
        }
        match &self.repository {
            Some(repo) => Ok(repo.get(name)?.map(Arc::new)),
            None => Ok(None),
        }
    }

    fn known_names(&self) -> Vec<String> {
        let mut names: Vec<String> = BUILTIN_PROFILE_NAMES
            .iter()
            .map(|n| (*n).to_owned())
            .collect();
        if let Some(repo) = &self.repository {
            names.extend(repo.list().unwrap_or_default().into_iter().map(|p| p.name));
        }
        names
    }

    fn unknown(&self, level: ProfileSource, name: &str) -> ProfileError {
        ProfileError::UnknownProfile {
            level,
            name: name.to_owned(),
            known: self.known_names(),
        }
    }

    /// The profile called `name` (built-in or custom).
    ///
    /// # Errors
    /// [`ProfileError::NotFound`] for an unknown name.
    pub fn get_profile(&self, name: &str) -> Result<AutomationProfile, ProfileError> {
        self.lookup(name)?
            .map(|p| (*p).clone())
            .ok_or_else(|| ProfileError::NotFound(name.to_owned()))
    }

    /// Every profile: the built-ins in their documented order, then the custom
    /// ones by name.
    ///
    /// # Errors
    /// [`ProfileError::Repository`] when the repository fails.
    pub fn list_profiles(&self) -> Result<Vec<AutomationProfile>, ProfileError> {
        let mut all = builtin_profiles();
        if let Some(repo) = &self.repository {
            let mut custom = repo.list()?;
            custom.sort_by(|a, b| a.name.cmp(&b.name));
            all.extend(custom);
        }
        Ok(all)
    }

    fn repository(&self) -> Result<&dyn ProfileRepository, ProfileError> {
        self.repository.as_deref().ok_or_else(|| {
            ProfileError::Repository(ServiceError::invalid(
                "repository",
                "custom profiles need a profile repository; none is configured",
            ))
        })
    }

    fn writable(&self, profile: &AutomationProfile) -> Result<(), ProfileError> {
        if is_builtin(&profile.name) {
            return Err(ProfileError::ReservedName(profile.name.clone()));
        }
        profile.validate()
    }

    /// Registers a custom profile.
    ///
    /// # Errors
    /// [`ProfileError::ReservedName`] for a built-in name,
    /// [`ProfileError::Invalid`] listing every problem,
    /// [`ProfileError::AlreadyExists`] for a taken name.
    pub fn create_profile(
        &self,
        profile: AutomationProfile,
    ) -> Result<AutomationProfile, ProfileError> {
        self.writable(&profile)?;
        match self.repository()?.insert(profile.clone()) {
            Ok(()) => Ok(profile),
            Err(ServiceError::AlreadyExists { .. }) => {
                Err(ProfileError::AlreadyExists(profile.name))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Replaces the custom profile `name`.
    ///
    /// # Errors
    /// As [`create_profile`](Self::create_profile), plus [`ProfileError::NameMismatch`]
    /// and [`ProfileError::NotFound`].
    pub fn update_profile(
        &self,
        name: &str,
        profile: AutomationProfile,
    ) -> Result<AutomationProfile, ProfileError> {
        if is_builtin(name) {
            return Err(ProfileError::ReservedName(name.to_owned()));
        }
        if profile.name != name {
            return Err(ProfileError::NameMismatch {
                target: name.to_owned(),
                body: profile.name,
            });
        }
        self.writable(&profile)?;
        match self.repository()?.update(profile.clone()) {
            Ok(()) => Ok(profile),
            Err(ServiceError::NotFound { .. }) => Err(ProfileError::NotFound(name.to_owned())),
            Err(e) => Err(e.into()),
        }
    }

    /// Removes the custom profile `name`, returning it. Plans that resolved it
    /// keep their copy.
    ///
    /// # Errors
    /// [`ProfileError::ReservedName`] for a built-in, [`ProfileError::NotFound`].
    pub fn delete_profile(&self, name: &str) -> Result<AutomationProfile, ProfileError> {
        if is_builtin(name) {
            return Err(ProfileError::ReservedName(name.to_owned()));
        }
        match self.repository()?.delete(name) {
            Ok(profile) => Ok(profile),
            Err(ServiceError::NotFound { .. }) => Err(ProfileError::NotFound(name.to_owned())),
            Err(e) => Err(e.into()),
        }
    }

    /// The global default's name and provenance, if any is set.
    fn global(&self) -> Option<(ProfileSource, String)> {
        if let Some(name) = set(self.global_default.as_deref()) {
            return Some((ProfileSource::Global, name.to_owned()));
        }
        self.environment
            .var(PROFILE_ENV_VAR)
            .filter(|v| !v.trim().is_empty())
            .map(|v| (ProfileSource::Environment, v))
    }

    /// Resolves the effective profile: plan > action > project > global > `manual`.
    ///
    /// # Errors
    /// [`ProfileError::UnknownProfile`] when any level that is set names no
    /// known profile.
    pub fn resolve_profile(
        &self,
        plan: Option<&str>,
        action: Option<&str>,
        project: Option<&str>,
    ) -> Result<ResolvedProfile, ProfileError> {
        let global = self.global();
        let levels = [
            (ProfileSource::Plan, set(plan)),
            (ProfileSource::Action, set(action)),
            (ProfileSource::Project, set(project)),
            (
                global.as_ref().map_or(ProfileSource::Global, |g| g.0),
                global.as_ref().map(|g| g.1.as_str()),
            ),
        ];
        let mut winner: Option<ResolvedProfile> = None;
        for (source, name) in levels {
            let Some(name) = name else { continue };
            let profile = self
                .lookup(name)?
                .ok_or_else(|| self.unknown(source, name))?;
            if winner.is_none() {
                winner = Some(ResolvedProfile { profile, source });
            }
        }
        match winner {
            Some(resolved) => Ok(resolved),
            None => builtin_profile("manual")
                .map(|profile| ResolvedProfile {
                    profile,
                    source: ProfileSource::Default,
                })
                .ok_or_else(|| self.unknown(ProfileSource::Default, "manual")),
        }
    }

    /// Resolves the effective safety profile with the same precedence
    /// (plan > action > project > global); when no level sets one, the
    /// `fallback` (normally the resolved automation profile's `safety`) applies.
    ///
    /// # Errors
    /// [`ProfileError::UnknownSafetyProfile`] when any level names no known
    /// safety profile.
    pub fn resolve_safety_profile(
        &self,
        plan: Option<&SafetyProfileRef>,
        action: Option<&SafetyProfileRef>,
        project: Option<&SafetyProfileRef>,
        global: Option<&SafetyProfileRef>,
        fallback: &SafetyProfile,
    ) -> Result<Resolved<SafetyProfile>, ProfileError> {
        let levels = [
            (ProfileSource::Plan, plan),
            (ProfileSource::Action, action),
            (ProfileSource::Project, project),
            (ProfileSource::Global, global),
        ];
        let mut winner = None;
        for (source, reference) in levels {
            let profile = match reference {
                None => continue,
                Some(SafetyProfileRef::Inline(profile)) => profile.clone(),
                Some(SafetyProfileRef::Named(name)) => {
                    SafetyProfile::named(name).ok_or_else(|| {
                        ProfileError::UnknownSafetyProfile {
                            level: source,
                            name: name.clone(),
                            known: NAMED_SAFETY_PROFILES
                                .iter()
                                .map(|n| (*n).to_owned())
                                .collect(),
                        }
                    })?
                }
            };
            if winner.is_none() {
                winner = Some(Resolved::new(profile, source));
            }
        }
        Ok(winner
            .unwrap_or_else(|| Resolved::new(fallback.clone(), ProfileSource::AutomationProfile)))
    }

    /// Evaluates the guard of the profile `profile_name` for one tool call.
    ///
    /// # Errors
    /// [`ProfileError::NotFound`] for an unknown profile.
    pub fn evaluate_guard(
        &self,
        profile_name: &str,
        ctx: &GuardContext<'_>,
    ) -> Result<GuardResult, ProfileError> {
        let profile = self
            .lookup(profile_name)?
            .ok_or_else(|| ProfileError::NotFound(profile_name.to_owned()))?;
        Ok(profile.check_guard(ctx))
    }

    /// Loads a profile document from a file (`.json` as JSON, otherwise YAML).
    ///
    /// # Errors
    /// [`ProfileError::Config`] with the path, line and column at fault.
    pub fn from_yaml(path: &std::path::Path) -> Result<AutomationProfile, ProfileError> {
        AutomationProfile::from_path(path)
    }
}
