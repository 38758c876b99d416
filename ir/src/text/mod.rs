//! The IR text form: printer and parser (to be written).
