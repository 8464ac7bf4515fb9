#if canImport(Glibc)
    import Glibc
#endif

/// The 100-byte SQLite header, read before SQLite parses it: a zeroed, garbage or truncated file is reported as
/// damaged here, and SQLite never gets a chance to treat an empty file as a fresh database. The bytes come through
/// the connection's own file handle, never a descriptor of our own (see `SQLiteDatabase.fileHead`). The store's
/// open checks it, and so does the lean binary before it serves `list --json` (a file that fails is authdeck-full's
/// to report).
package enum StoreFileHeader {
    package static func check(_ database: SQLiteDatabase) throws(StoreError) {
        let path = database.path
        let head: (size: Int64, bytes: [UInt8])
        do { head = try database.fileHead(100) } catch { throw .storage("cannot read \(path): \(error.message)") }
        guard head.size > 0 else { throw .damagedDatabase(path: path, detail: "the file is empty") }
        let header = head.bytes
        guard header.count == 100 else { throw .damagedDatabase(path: path, detail: "the file is too short") }
        guard header.starts(with: Array("SQLite format 3\0".utf8)) else {
            throw .damagedDatabase(path: path, detail: "it is not an SQLite database")
        }
        func bigEndian(_ offset: Int, _ width: Int) -> Int {
            header[offset..<(offset + width)].reduce(0) { $0 << 8 | Int($1) }
        }
        let pageSize = bigEndian(16, 2) == 1 ? 65_536 : bigEndian(16, 2)
        let pageCount = bigEndian(28, 4)
        // The page count is trusted only when its "valid for" number matches the change counter.
        guard bigEndian(92, 4) == bigEndian(24, 4), pageSize >= 512 else { return }
        var walInfo = stat()
        let walHasFrames = stat(path + "-wal", &walInfo) == 0 && walInfo.st_size > 32
        // A checkpoint cut short can leave the file short while the WAL still holds the pages: not damage.
        if !walHasFrames && Int(head.size) < pageCount * pageSize {
            throw .damagedDatabase(path: path, detail: "truncated: \(head.size) of \(pageCount * pageSize) bytes")
        }
    }
}
