//! The newest model format a backend reads: the highest IR version and, per domain, the highest
//! opset. A model past either is `unsupported` because the runtime is older than the model, a
//! fact the runner decides from the model it parsed, before running anything — never from the
//! wording of the runtime's error ("Unsupported model IR version: 10, max supported IR
//! version: 9"), which would otherwise be a refusal of a valid input: a gating failure.

use std::collections::BTreeMap;

use super::unsupported::{ProfileKey, Unsupported};

/// The newest IR version and opsets a backend reads; nothing set: any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct FormatLimits {
    /// The highest `ModelProto.ir_version` it reads.
    pub(crate) max_ir_version: Option<i64>,
    /// The highest opset it reads per domain (`""` for ai.onnx); a domain not listed: any.
    pub(crate) max_opsets: BTreeMap<String, i64>,
}

impl FormatLimits {
    /// Why a model of IR version `ir_version` importing `opsets` (per domain, `""` for
    /// ai.onnx) is too new, if it is.
    pub(crate) fn excludes(&self, ir_version: i64, opsets: &BTreeMap<String, i64>) -> Option<Unsupported> {
        if let Some(max) = self.max_ir_version
            && ir_version > max
        {
            return Some(Unsupported::Excluded(
                ProfileKey::MaxIrVersion,
                format!("IR version {ir_version} (the backend reads up to {max})"),
            ));
        }
        self.max_opsets.iter().find_map(|(domain, &max)| {
            let opset = *opsets.get(domain)?;
            (opset > max).then(|| {
                let shown = if domain.is_empty() { "ai.onnx" } else { domain };
                Unsupported::Excluded(
                    ProfileKey::MaxOpset,
                    format!("opset {opset} of {shown} (the backend reads up to {max})"),
                )
            })
        })
    }
}
