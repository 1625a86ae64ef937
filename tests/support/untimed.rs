//! Reports of two runs compared: everything but the timings, the one thing they never share.

use std::path::Path;

/// The JSON report at `file`, every `duration` field removed.
pub fn untimed_json(file: &Path) -> serde_json::Value {
    fn strip(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                map.retain(|key, _| !key.contains("duration"));
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut json: serde_json::Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    strip(&mut json);
    json
}
