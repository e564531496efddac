//! `{{resource.<name>.path}}` templates in mount sources.
//!
//! Exactly one form is understood, and only at the start of a mount source:
//! the resource's host path, optionally followed by a `/`-led suffix. Anything
//! else that looks like a template is rejected, so nothing is ever interpolated
//! by accident (no environment, no shell, no nested expansion).

use std::path::{Component, Path, PathBuf};

use super::error::ContainerToolError;
use super::resource::ResourceRegistry;

/// A parsed mount source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Template<'a> {
    reference: Option<&'a str>,
    rest: &'a str,
}

fn valid_resource_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
}

impl<'a> Template<'a> {
    /// Parses `source`; the error says what is wrong with the template.
    pub(crate) fn parse(source: &'a str) -> Result<Self, String> {
        let Some(after_open) = source.strip_prefix("{{") else {
            if source.contains("{{") || source.contains("}}") {
                return Err(format!(
                    "`{source}`: a template may only start the source, as `{{{{resource.<name>.path}}}}`"
                ));
            }
            return Ok(Self {
                reference: None,
                rest: source,
            });
        };
        let Some((inner, rest)) = after_open.split_once("}}") else {
            return Err(format!("`{source}`: unterminated `{{{{`"));
        };
        let inner = inner.trim();
        let name = inner
            .strip_prefix("resource.")
            .and_then(|r| r.strip_suffix(".path"))
            .filter(|n| valid_resource_name(n))
            .ok_or_else(|| {
                format!(
                    "`{{{{{inner}}}}}` is not a supported template; only `{{{{resource.<name>.path}}}}` is"
                )
            })?;
        if rest.contains("{{") || rest.contains("}}") {
            return Err(format!("`{source}`: only one template is allowed"));
        }
        if !rest.is_empty() {
            if !rest.starts_with('/') {
                return Err(format!(
                    "`{source}`: text after the template must start with `/`"
                ));
            }
            if rest.contains('\0')
                || Path::new(rest)
                    .components()
                    .any(|c| matches!(c, Component::ParentDir))
            {
                return Err(format!("`{source}`: the suffix must not contain `..`"));
            }
        }
        Ok(Self {
            reference: Some(name),
            rest,
        })
    }

    /// Whether the source uses a resource.
    pub(crate) const fn has_reference(&self) -> bool {
        self.reference.is_some()
    }

    /// The resource named, if any.
    pub(crate) const fn reference(&self) -> Option<&'a str> {
        self.reference
    }

    /// The host path: the resource's path (from `resources`) joined with the
    /// suffix, or the literal source.
    pub(crate) fn resolve(
        &self,
        field: &str,
        resources: &dyn ResourceRegistry,
    ) -> Result<PathBuf, ContainerToolError> {
        let Some(name) = self.reference else {
            return Ok(PathBuf::from(self.rest));
        };
        let base = resources
            .resource_path(name)
            .map_err(|e| ContainerToolError::Resource {
                name: name.to_owned(),
                reason: e.to_string(),
            })?
            .ok_or_else(|| ContainerToolError::UnknownResource {
                field: field.to_owned(),
                name: name.to_owned(),
            })?;
        let base_str = base.to_string_lossy();
        super::spec::check_absolute(&base_str).map_err(|m| ContainerToolError::Resource {
            name: name.to_owned(),
            reason: format!("its path `{base_str}` {m}"),
        })?;
        let suffix = self.rest.trim_start_matches('/');
        Ok(if suffix.is_empty() {
            base
        } else {
            base.join(suffix)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::InMemoryResourceRegistry;

    #[test]
    fn parses_the_one_form() {
        let t = Template::parse("{{resource.git_dir.path}}").unwrap();
        assert_eq!(t.reference(), Some("git_dir"));
        let t = Template::parse("{{ resource.git-dir.path }}/src").unwrap();
        assert_eq!(t.reference(), Some("git-dir"));
        let t = Template::parse("/abs/path").unwrap();
        assert!(!t.has_reference());
        for bad in [
            "{{resource.x.path}}{{resource.y.path}}",
            "/a/{{resource.x.path}}",
            "{{resource..path}}",
            "{{resource.x.url}}",
            "{{env.HOME}}",
            "{{resource.x.path",
            "{{resource.x.path}}rel",
            "{{resource.x.path}}/../up",
            "/a}}",
        ] {
            assert!(Template::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn resolves_from_the_registry() {
        let reg = InMemoryResourceRegistry::new();
        reg.insert("git_dir", "/srv/repo");
        let t = Template::parse("{{resource.git_dir.path}}/src").unwrap();
        assert_eq!(
            t.resolve("mounts[0].source", &reg).unwrap(),
            PathBuf::from("/srv/repo/src")
        );
        let t = Template::parse("{{resource.other.path}}").unwrap();
        assert!(matches!(
            t.resolve("mounts[0].source", &reg),
            Err(ContainerToolError::UnknownResource { .. })
        ));
        reg.insert("rel", "relative");
        let t = Template::parse("{{resource.rel.path}}").unwrap();
        assert!(matches!(
            t.resolve("mounts[0].source", &reg),
            Err(ContainerToolError::Resource { .. })
        ));
    }
}
