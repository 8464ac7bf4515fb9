// The store's Foundation-free core (SQLite, key cache, location, session choice, the token read) lives in
// StoreCore, which the lean `authdeck` binary links alone; `import SessionStorage` still sees all of it.
@_exported import StoreCore
