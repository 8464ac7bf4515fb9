// The TestSupport helpers, visible by their plain names in every file of this target: a suite needs no import
// of its own for them.
@_exported import TestSupport
