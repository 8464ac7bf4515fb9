// The pieces that need neither Foundation nor a C library (session-key rule, terminal text, durations, version)
// live in AuthBase, so the lean `authdeck` binary links them without Foundation; `import AuthCore` still sees them.
@_exported import AuthBase
