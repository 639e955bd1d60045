//! MCP protocol revisions.
//!
//! Versions are an enumerated set and are never compared as dates
//! (`decisions.md`, "Versions").

use core::fmt;

/// One MCP protocol revision that Janus knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProtocolVersion {
    /// `2024-11-05`, the first revision (handshake).
    V2024_11_05,
    /// `2025-03-26`, the only revision with JSON-RPC batches (handshake).
    V2025_03_26,
    /// `2025-06-18` (handshake).
    V2025_06_18,
    /// `2025-11-25`, the last handshake revision, with experimental tasks.
    V2025_11_25,
    /// `2026-07-28`, the first stateless (modern) revision.
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every revision Janus serves, oldest first.
    pub const KNOWN: [Self; 5] = [
        Self::V2024_11_05,
        Self::V2025_03_26,
        Self::V2025_06_18,
        Self::V2025_11_25,
        Self::V2026_07_28,
    ];
    /// The revisions negotiated with the `initialize` handshake.
    pub const HANDSHAKE: [Self; 4] = [
        Self::V2024_11_05,
        Self::V2025_03_26,
        Self::V2025_06_18,
        Self::V2025_11_25,
    ];
    /// The stateless revisions, whose requests carry the `_meta` envelope.
    pub const MODERN: [Self; 1] = [Self::V2026_07_28];
    /// The answer to an `initialize` that proposes a version Janus does not handshake.
    pub const LATEST_HANDSHAKE: Self = Self::V2025_11_25;

    /// The version as it is written on the wire.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2024_11_05 => "2024-11-05",
            Self::V2025_03_26 => "2025-03-26",
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
            Self::V2026_07_28 => "2026-07-28",
        }
    }

    /// Looks a wire string up in [`Self::KNOWN`]; anything else is `None`.
    #[must_use]
    pub fn from_wire(s: &str) -> Option<Self> {
        Self::KNOWN.into_iter().find(|v| v.as_str() == s)
    }

    /// True for the revisions that use the `initialize` handshake.
    #[must_use]
    pub const fn is_handshake(self) -> bool {
        !self.is_modern()
    }

    /// True for the stateless revisions.
    #[must_use]
    pub const fn is_modern(self) -> bool {
        matches!(self, Self::V2026_07_28)
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::ProtocolVersion as V;

    #[test]
    fn wire_names_round_trip_and_sets_partition() {
        for v in V::KNOWN {
            assert_eq!(V::from_wire(v.as_str()), Some(v));
            assert_ne!(v.is_handshake(), v.is_modern());
        }
        assert_eq!(V::HANDSHAKE.len() + V::MODERN.len(), V::KNOWN.len());
        assert_eq!(V::from_wire("2025-11-26"), None);
        assert_eq!(V::from_wire(""), None);
        assert!(V::LATEST_HANDSHAKE.is_handshake());
    }
}
