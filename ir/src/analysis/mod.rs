//! Analyses over the Kernel IR (uniformity and stride; to be written).
