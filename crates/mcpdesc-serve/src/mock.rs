//! The mock backend: Tool Results from named examples (§9.3).
