//! Test-only support shared by every family's unit tests.

pub(crate) mod vectors;
