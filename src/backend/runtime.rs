//! Which runtime a backend runs, as data: its name, version and build, apart from the display
//! name a report shows (`onnxruntime 1.32.0`), so that reports, the matrix and the scoreboard
//! can sort, filter and compare by version. A worker gives it in its hello's optional
//! `runtime` (docs/backend-protocol.md); a Rust backend by [`Backend::runtime`](super::Backend::runtime).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The longest name, version or build a worker may state: it is shown, not a payload.
const MAX_FIELD: usize = 200;

/// A runtime's name, version and build.
///
/// ```
/// use pad_conformance::RuntimeInfo;
/// let ort = RuntimeInfo::new("onnxruntime").version("1.32.0").build("release").device("CPUExecutionProvider");
/// assert_eq!(ort.label(), "onnxruntime 1.32.0 (release) on CPUExecutionProvider");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RuntimeInfo {
    /// The runtime: `onnxruntime`, `openvino`, `tract`.
    pub name: String,
    /// Its version, as it states it: `1.32.0`, `2025.4.1-20426-…`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// How it was built, when that matters: an execution provider, a commit, a feature set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    /// Where it ran: an execution provider, a plugin, a device (`CPUExecutionProvider`,
    /// `CPU`). Apart from `build`, so that rows of one runtime on two devices can be told apart
    /// by a script.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
}

impl RuntimeInfo {
    /// A runtime named `name`, of no stated version or build.
    pub fn new(name: impl Into<String>) -> RuntimeInfo {
        RuntimeInfo {
            name: name.into(),
            version: None,
            build: None,
            device: None,
        }
    }

    /// With `version`.
    pub fn version(mut self, version: impl Into<String>) -> RuntimeInfo {
        self.version = Some(version.into());
        self
    }

    /// With `build`.
    pub fn build(mut self, build: impl Into<String>) -> RuntimeInfo {
        self.build = Some(build.into());
        self
    }

    /// On `device`.
    pub fn device(mut self, device: impl Into<String>) -> RuntimeInfo {
        self.device = Some(device.into());
        self
    }

    /// `name version (build) on device`, leaving out what is not stated.
    pub fn label(&self) -> String {
        let mut label = self.name.clone();
        if let Some(version) = &self.version {
            label.push(' ');
            label.push_str(version);
        }
        if let Some(build) = &self.build {
            label.push_str(&format!(" ({build})"));
        }
        if let Some(device) = &self.device {
            label.push_str(&format!(" on {device}"));
        }
        label
    }

    /// The `runtime` of a worker's hello: `None` when absent (a worker older than the field),
    /// else an object with a non-empty string `name` and optional string (or null) `version`,
    /// `build` and `device`, each at most 200 characters; other keys are ignored. Anything else is an
    /// error saying what.
    pub(crate) fn from_hello(runtime: Option<&Value>) -> Result<Option<RuntimeInfo>, String> {
        let Some(runtime) = runtime else {
            return Ok(None);
        };
        let Some(fields) = runtime.as_object() else {
            return Err(format!("the hello's runtime {runtime} is not an object"));
        };
        let text = |key: &str| -> Result<Option<String>, String> {
            match fields.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(text)) if text.chars().count() <= MAX_FIELD => Ok(Some(text.clone())),
                Some(Value::String(text)) => Err(format!(
                    "the hello's runtime {key} is longer than {MAX_FIELD} characters ({})",
                    text.chars().count()
                )),
                Some(other) => Err(format!("the hello's runtime {key} {other} is not a string")),
            }
        };
        let name = match text("name")? {
            Some(name) if !name.trim().is_empty() => name,
            _ => return Err("the hello's runtime has no name (a non-empty string)".into()),
        };
        Ok(Some(RuntimeInfo {
            name,
            version: text("version")?,
            build: text("build")?,
            device: text("device")?,
        }))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_hello_s_runtime_is_optional_and_checked_when_present() {
        assert_eq!(RuntimeInfo::from_hello(None), Ok(None));
        let full = json!({"name": "openvino", "version": "2025.4.1", "build": "b1", "device": "CPU", "extra": 1});
        assert_eq!(
            RuntimeInfo::from_hello(Some(&full)),
            Ok(Some(
                RuntimeInfo::new("openvino")
                    .version("2025.4.1")
                    .build("b1")
                    .device("CPU")
            ))
        );
        let bare = json!({"name": "tinygrad", "version": null});
        assert_eq!(
            RuntimeInfo::from_hello(Some(&bare)).unwrap().unwrap().label(),
            "tinygrad"
        );
        for (bad, says) in [
            (json!("onnxruntime"), r#"runtime "onnxruntime" is not an object"#),
            (json!({}), "runtime has no name"),
            (json!({"name": " "}), "runtime has no name"),
            (json!({"name": 3}), "runtime name 3 is not a string"),
            (
                json!({"name": "x", "version": 1.5}),
                "runtime version 1.5 is not a string",
            ),
            (
                json!({"name": "x", "build": "b".repeat(201)}),
                "runtime build is longer than 200 characters (201)",
            ),
            (
                json!({"name": "x", "device": ["CPU"]}),
                r#"runtime device ["CPU"] is not a string"#,
            ),
        ] {
            let error = RuntimeInfo::from_hello(Some(&bad)).unwrap_err();
            assert!(error.contains(says), "{bad}: {error}");
        }
    }
}
