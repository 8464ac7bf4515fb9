import Testing

/// The interoperability suites, one server at a time: each starts a real server and a browser, and two at once on
/// a machine of two cores would starve the timing-sensitive suites that run beside them.
@Suite(.serialized) enum InteropTests {}
