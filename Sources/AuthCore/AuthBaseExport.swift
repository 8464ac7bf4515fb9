// The pieces that need neither Foundation nor a C library beyond libc (session-key rule, terminal text, durations,
// version, secret files) live in AuthBase, so the lean `authdeck` binary links them without Foundation; `import AuthCore` still sees them.
@_exported import AuthBase
