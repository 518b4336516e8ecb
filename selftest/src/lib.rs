//! Self-tests.
