//! The Agent Card: how an agent describes itself, emitted in the shape of
//! the A2A version the client speaks.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::version::A2aVersion;

/// Where clients fetch the card (A2A 0.3 and 1.0).
pub const AGENT_CARD_PATH: &str = "/.well-known/agent-card.json";
/// The older well-known path, also served.
pub const AGENT_JSON_PATH: &str = "/.well-known/agent.json";
/// The URI of the `_cleveragents/` extension.
pub const EXTENSION_URI: &str = "urn:cleveragents:extensions:v1";

/// `value` with `key` set (a no-op unless `value` is an object).
fn with(mut value: Value, key: &str, field: Value) -> Value {
    if let Some(map) = value.as_object_mut() {
        map.insert(key.to_owned(), field);
    }
    value
}

/// One thing the agent is good at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AgentSkill {
    /// Unique id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Keywords.
    pub tags: Vec<String>,
    /// Example prompts.
    pub examples: Vec<String>,
}

impl AgentSkill {
    /// A skill with no tags or examples.
    #[must_use]
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            description: description.into(),
            tags: Vec::new(),
            examples: Vec::new(),
        }
    }

    /// Adds tags.
    #[must_use]
    pub fn tags(mut self, tags: &[&str]) -> Self {
        self.tags.extend(tags.iter().map(|t| (*t).to_owned()));
        self
    }
}

/// A protocol extension the agent supports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AgentExtension {
    /// Its URI.
    pub uri: String,
    /// How the agent uses it.
    pub description: String,
    /// Whether clients must understand it.
    pub required: bool,
    /// Extension parameters.
    pub params: Map<String, Value>,
}

/// How clients authenticate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum SecurityScheme {
    /// HTTP authentication, e.g. `bearer`.
    Http {
        /// The scheme, e.g. `bearer`.
        scheme: String,
        /// Token format hint, e.g. `JWT`.
        bearer_format: Option<String>,
    },
    /// An API key.
    ApiKey {
        /// Header, query or cookie parameter name.
        name: String,
        /// `header`, `query` or `cookie`.
        location: String,
    },
    /// OpenID Connect discovery.
    OpenIdConnect {
        /// The discovery URL.
        url: String,
    },
}

/// The agent's self-description. Build it with [`AgentCard::builder`].
///
/// ```
/// use cleveragents::a2a::{A2aVersion, AgentCard};
///
/// let card = AgentCard::cleveragents("http://127.0.0.1:8080/");
/// let v03 = card.to_json(A2aVersion::V0_3);
/// assert_eq!(v03["protocolVersion"], "0.3.0");
/// assert_eq!(v03["capabilities"]["extensions"][0]["uri"], "urn:cleveragents:extensions:v1");
/// let v10 = card.to_json(A2aVersion::V1_0);
/// assert_eq!(v10["supportedInterfaces"][0]["protocolVersion"], "1.0");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AgentCard {
    /// Display name.
    pub name: String,
    /// What the agent does.
    pub description: String,
    /// The JSON-RPC endpoint.
    pub url: String,
    /// The agent's own version.
    pub version: String,
    /// Skills.
    pub skills: Vec<AgentSkill>,
    /// Whether streaming methods are offered.
    pub streaming: bool,
    /// Whether push notifications are offered.
    pub push_notifications: bool,
    /// Whether an extended card is offered to authenticated clients.
    pub extended_card: bool,
    /// Protocol extensions.
    pub extensions: Vec<AgentExtension>,
    /// Security schemes by name.
    pub security_schemes: BTreeMap<String, SecurityScheme>,
    /// Required schemes (any one of the listed sets).
    pub security: Vec<BTreeMap<String, Vec<String>>>,
    /// Input media types.
    pub default_input_modes: Vec<String>,
    /// Output media types.
    pub default_output_modes: Vec<String>,
    /// The provider's organisation and URL.
    pub provider: Option<(String, String)>,
    /// Documentation.
    pub documentation_url: Option<String>,
}

/// Builds an [`AgentCard`].
#[derive(Debug, Clone)]
#[must_use]
pub struct AgentCardBuilder {
    card: AgentCard,
}

impl AgentCardBuilder {
    /// Sets the agent's version (default: this crate's).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.card.version = version.into();
        self
    }
    /// Adds a skill.
    pub fn skill(mut self, skill: AgentSkill) -> Self {
        self.card.skills.push(skill);
        self
    }
    /// Declares the `_cleveragents/` extension with the method globs it offers.
    pub fn cleveragents_extension(mut self, methods: &[&str]) -> Self {
        let mut params = Map::new();
        params.insert("methods".into(), json!(methods));
        self.card.extensions.push(AgentExtension {
            uri: EXTENSION_URI.to_owned(),
            description: "CleverAgents platform operations under the `_cleveragents/` namespace"
                .to_owned(),
            required: false,
            params,
        });
        self
    }
    /// Adds a security scheme and requires it.
    pub fn security_scheme(mut self, name: impl Into<String>, scheme: SecurityScheme) -> Self {
        let name = name.into();
        let mut requirement = BTreeMap::new();
        requirement.insert(name.clone(), Vec::new());
        self.card.security.push(requirement);
        self.card.security_schemes.insert(name, scheme);
        self
    }
    /// Sets whether push notifications are offered (default true).
    pub fn push_notifications(mut self, offered: bool) -> Self {
        self.card.push_notifications = offered;
        self
    }
    /// Sets whether an extended card is offered (default false).
    pub fn extended_card(mut self, offered: bool) -> Self {
        self.card.extended_card = offered;
        self
    }
    /// Sets the provider.
    pub fn provider(mut self, organization: impl Into<String>, url: impl Into<String>) -> Self {
        self.card.provider = Some((organization.into(), url.into()));
        self
    }
    /// Builds the card.
    #[must_use]
    pub fn build(self) -> AgentCard {
        self.card
    }
}

impl AgentCard {
    /// A builder for a card named `name` served at `url`.
    pub fn builder(
        name: impl Into<String>,
        description: impl Into<String>,
        url: impl Into<String>,
    ) -> AgentCardBuilder {
        AgentCardBuilder {
            card: AgentCard {
                name: name.into(),
                description: description.into(),
                url: url.into(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
                skills: Vec::new(),
                streaming: true,
                push_notifications: true,
                extended_card: false,
                extensions: Vec::new(),
                security_schemes: BTreeMap::new(),
                security: Vec::new(),
                default_input_modes: vec!["text/plain".into(), "application/json".into()],
                default_output_modes: vec!["text/plain".into(), "application/json".into()],
                provider: None,
                documentation_url: None,
            },
        }
    }

    /// The CleverAgents card: its skills, the `_cleveragents/` extension and
    /// bearer authentication.
    #[must_use]
    pub fn cleveragents(url: impl Into<String>) -> Self {
        Self::builder("CleverAgents", "Autonomous software engineering agent", url)
            .skill(
                AgentSkill::new(
                    "plan-lifecycle",
                    "Plan lifecycle",
                    "Strategize, execute and apply plans",
                )
                .tags(&["plans"]),
            )
            .skill(
                AgentSkill::new(
                    "registry-crud",
                    "Registries",
                    "Tools, resources, actors, skills, actions, projects",
                )
                .tags(&["registry"]),
            )
            .skill(
                AgentSkill::new(
                    "context-management",
                    "Context",
                    "Show, inspect, simulate and set context",
                )
                .tags(&["context"]),
            )
            .cleveragents_extension(&["_cleveragents/plan/*", "_cleveragents/registry/*"])
            .security_scheme(
                "bearerAuth",
                SecurityScheme::Http {
                    scheme: "bearer".into(),
                    bearer_format: None,
                },
            )
            .build()
    }

    /// The card in the JSON shape of `version`.
    #[must_use]
    pub fn to_json(&self, version: A2aVersion) -> Value {
        match version {
            A2aVersion::V0_3 => self.to_v03(),
            A2aVersion::V1_0 => self.to_v10(),
        }
    }

    fn skills_json(&self) -> Value {
        Value::Array(
            self.skills
                .iter()
                .map(|s| {
                    let v = json!({"id": s.id, "name": s.name, "description": s.description, "tags": s.tags});
                    if s.examples.is_empty() {
                        v
                    } else {
                        with(v, "examples", json!(s.examples))
                    }
                })
                .collect(),
        )
    }

    fn extensions_json(&self) -> Value {
        Value::Array(
            self.extensions
                .iter()
                .map(|e| json!({"uri": e.uri, "description": e.description, "required": e.required, "params": e.params}))
                .collect(),
        )
    }

    /// Adds the optional fields both versions spell alike.
    fn common_optional(&self, mut card: Value) -> Value {
        if let Some((organization, url)) = &self.provider {
            card = with(
                card,
                "provider",
                json!({"organization": organization, "url": url}),
            );
        }
        if let Some(url) = &self.documentation_url {
            card = with(card, "documentationUrl", json!(url));
        }
        card
    }

    fn to_v03(&self) -> Value {
        let schemes: Map<String, Value> = self
            .security_schemes
            .iter()
            .map(|(name, scheme)| {
                let v = match scheme {
                    SecurityScheme::Http {
                        scheme,
                        bearer_format,
                    } => {
                        let v = json!({"type": "http", "scheme": scheme});
                        match bearer_format {
                            Some(f) => with(v, "bearerFormat", json!(f)),
                            None => v,
                        }
                    }
                    SecurityScheme::ApiKey { name, location } => {
                        json!({"type": "apiKey", "name": name, "in": location})
                    }
                    SecurityScheme::OpenIdConnect { url } => {
                        json!({"type": "openIdConnect", "openIdConnectUrl": url})
                    }
                };
                (name.clone(), v)
            })
            .collect();
        let card = json!({
            "name": self.name,
            "description": self.description,
            "url": self.url,
            "version": self.version,
            "protocolVersion": "0.3.0",
            "preferredTransport": "JSONRPC",
            "capabilities": {
                "streaming": self.streaming,
                "pushNotifications": self.push_notifications,
                "extensions": self.extensions_json(),
            },
            "defaultInputModes": self.default_input_modes,
            "defaultOutputModes": self.default_output_modes,
            "skills": self.skills_json(),
            "securitySchemes": schemes,
            "security": self.security,
            "supportsAuthenticatedExtendedCard": self.extended_card,
        });
        self.common_optional(card)
    }

    fn to_v10(&self) -> Value {
        let schemes: Map<String, Value> = self
            .security_schemes
            .iter()
            .map(|(name, scheme)| {
                let v = match scheme {
                    SecurityScheme::Http {
                        scheme,
                        bearer_format,
                    } => {
                        let inner = json!({"scheme": scheme});
                        let inner = match bearer_format {
                            Some(f) => with(inner, "bearerFormat", json!(f)),
                            None => inner,
                        };
                        json!({"httpAuthSecurityScheme": inner})
                    }
                    SecurityScheme::ApiKey { name, location } => {
                        json!({"apiKeySecurityScheme": {"name": name, "location": location}})
                    }
                    SecurityScheme::OpenIdConnect { url } => {
                        json!({"openIdConnectSecurityScheme": {"openIdConnectUrl": url}})
                    }
                };
                (name.clone(), v)
            })
            .collect();
        let requirements: Vec<Value> = self
            .security
            .iter()
            .map(|req| {
                let schemes: Map<String, Value> = req
                    .iter()
                    .map(|(name, scopes)| (name.clone(), json!({"list": scopes})))
                    .collect();
                json!({"schemes": schemes})
            })
            .collect();
        let card = json!({
            "name": self.name,
            "description": self.description,
            "supportedInterfaces": [
                {"url": self.url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                {"url": self.url, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
            ],
            "version": self.version,
            "capabilities": {
                "streaming": self.streaming,
                "pushNotifications": self.push_notifications,
                "extensions": self.extensions_json(),
                "extendedAgentCard": self.extended_card,
            },
            "securitySchemes": schemes,
            "securityRequirements": requirements,
            "defaultInputModes": self.default_input_modes,
            "defaultOutputModes": self.default_output_modes,
            "skills": self.skills_json(),
        });
        self.common_optional(card)
    }
}
