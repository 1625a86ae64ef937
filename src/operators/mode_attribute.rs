//! A Pad node's `mode` attribute as the node spells it, kept typed in outcomes and reports.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::PadMode;

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
