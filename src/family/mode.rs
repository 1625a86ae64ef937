//! How a Pad node fills its border: the four modes, and the `mode` attribute as a node spells
//! it, kept typed in outcomes and reports.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How the border is filled.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum PadMode {
    /// A constant value (`constant_value`, or zero).
    Constant,
    /// Mirror without repeating the edge element.
    Reflect,
    /// Repeat the edge element.
    Edge,
    /// As if the axis were a ring (Pad-19 and later).
    Wrap,
}

impl PadMode {
    /// Every mode, in the order tables list them.
    pub const ALL: [PadMode; 4] = [PadMode::Constant, PadMode::Reflect, PadMode::Edge, PadMode::Wrap];

    /// The mode named as ONNX's `mode` attribute spells it.
    pub fn from_name(name: &str) -> Option<PadMode> {
        PadMode::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The attribute spelling.
    pub fn name(self) -> &'static str {
        match self {
            PadMode::Constant => "constant",
            PadMode::Reflect => "reflect",
            PadMode::Edge => "edge",
            PadMode::Wrap => "wrap",
        }
    }
}

impl fmt::Display for PadMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The `mode` a Pad node names: one of the four modes, or another spelling, for which the
/// node must be refused (kept as written, so a report shows what the node said).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[non_exhaustive]
pub enum ModeAttribute {
    /// One of the modes the operators define.
    Mode(PadMode),
    /// A spelling no version defines (`"Reflect"`, `"mirror"`); not valid UTF-8 is kept lossily.
    Unknown(String),
}

impl ModeAttribute {
    /// The attribute's spelling read as a mode.
    pub fn from_name(name: &str) -> ModeAttribute {
        PadMode::from_name(name).map_or_else(|| ModeAttribute::Unknown(name.to_owned()), ModeAttribute::Mode)
    }

    /// The mode, when the spelling is one of the four.
    pub fn mode(&self) -> Option<PadMode> {
        match self {
            ModeAttribute::Mode(mode) => Some(*mode),
            ModeAttribute::Unknown(_) => None,
        }
    }

    /// The spelling, as the attribute holds it.
    pub fn name(&self) -> &str {
        match self {
            ModeAttribute::Mode(mode) => mode.name(),
            ModeAttribute::Unknown(name) => name,
        }
    }
}

impl From<PadMode> for ModeAttribute {
    fn from(mode: PadMode) -> Self {
        ModeAttribute::Mode(mode)
    }
}

impl fmt::Display for ModeAttribute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Written as the attribute's string, so reports keep the shape they always had.
impl Serialize for ModeAttribute {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for ModeAttribute {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Ok(ModeAttribute::from_name(&name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_spellings_are_modes_and_others_are_kept_as_written() {
        assert_eq!(ModeAttribute::from_name("wrap"), ModeAttribute::Mode(PadMode::Wrap));
        assert_eq!(ModeAttribute::from_name("Wrap"), ModeAttribute::Unknown("Wrap".into()));
        assert_eq!(ModeAttribute::from_name("Wrap").mode(), None);
        for attribute in [
            ModeAttribute::Mode(PadMode::Edge),
            ModeAttribute::Unknown("mirror".into()),
        ] {
            let json = serde_json::to_string(&attribute).unwrap();
            assert_eq!(json, format!("\"{}\"", attribute.name()));
            assert_eq!(serde_json::from_str::<ModeAttribute>(&json).unwrap(), attribute);
        }
    }
}
